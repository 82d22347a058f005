/* The CUDA device: runs device artifacts whose code is PTX and a cubin (IngotDeviceCode, format
 * INGOT_DEVICE_CODE_CUDA) through the CUDA driver API, opened with dlopen (libcuda.so.1) at the
 * first load of such an artifact, so that neither the runtime nor machines without an NVIDIA
 * driver need CUDA. At model load: device 0 ($INGOT_CUDA_DEVICE=N picks another), its primary
 * context, the module (the cubin where the device's compute capability is the artifact's, else
 * the PTX, which the driver compiles), and the constants copied to device memory. Per session: a
 * stream and device buffers for the workspace, the inputs and the outputs. A run copies the
 * inputs, launches in order on the stream, and copies the outputs back into the session's host
 * buffers. The launches of a session never change (its buffers are fixed), so its first
 * unprofiled run captures them into a CUDA Graph and every run after that launches the graph:
 * one launch per run instead of one per kernel, which is what bounds batch-1 latency. A driver
 * without graphs, a failed capture or $INGOT_CUDA_GRAPHS=0 keeps plain launches; profiled runs
 * always launch kernel by kernel so that each can be timed. The driver entry points are declared by
 * their stable C ABI (the _v2 symbols cuda.h maps the names to), so the runtime builds without the
 * CUDA toolkit. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUgraph_st* CUgraph;
typedef struct CUgraphExec_st* CUgraphExec;

#define CUDA_SUCCESS 0
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_STREAM_NON_BLOCKING 1
#define CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1

#define INGOT_CU_FUNCTIONS(X)                                                                    \
  X(cuInit, "cuInit", (unsigned))                                                                \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int*))                                                \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice*, int))                                                \
  X(cuDeviceGetName, "cuDeviceGetName", (char*, int, CUdevice))                                  \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int*, int, CUdevice))                         \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext*, CUdevice))                \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice))                       \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                                             \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule*, const void*))                              \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction*, CUmodule, const char*))            \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule))                                                \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr*, size_t))                                         \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr))                                                    \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr, const void*, size_t))                         \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", (CUdeviceptr, const void*, size_t, CUstream))     \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void*, CUdeviceptr, size_t, CUstream))           \
  X(cuStreamCreate, "cuStreamCreate", (CUstream*, unsigned))                                     \
  X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream))                                           \
  X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream))                                      \
  X(cuLaunchKernel, "cuLaunchKernel",                                                            \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, \
     void**, void**))

typedef struct Cuda {
#define INGOT_X(name, symbol, args) CUresult(*name) args;
  INGOT_CU_FUNCTIONS(INGOT_X)
#undef INGOT_X
  CUresult (*cuGetErrorString)(CUresult, const char**);
  /* CUDA Graphs (driver 11.4+); optional: without them runs launch kernel by kernel. */
  CUresult (*cuStreamBeginCapture)(CUstream, int);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph*);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec*, CUgraph, unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
} Cuda;

static Cuda g_cu;
static int g_cu_loaded; /* 1 loaded and initialised, -1 failed */
static char g_cu_error[256];
static pthread_mutex_t g_cu_lock = PTHREAD_MUTEX_INITIALIZER;

/* $INGOT_CUDA_LIBRARY (tests point it at a missing file), else the driver's soname. */
static const char* driver_name(void) {
  const char* env = getenv("INGOT_CUDA_LIBRARY");
  return env && *env ? env : "libcuda.so.1";
}

static const char* cu_error(CUresult r) {
  const char* s = NULL;
  if (g_cu.cuGetErrorString == NULL || g_cu.cuGetErrorString(r, &s) != CUDA_SUCCESS || !s)
    return "unknown CUDA error";
  return s;
}

static int load_cuda(void) {
  pthread_mutex_lock(&g_cu_lock);
  if (g_cu_loaded == 0) {
    void* h = dlopen(driver_name(), RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
      const char* why = dlerror();
      snprintf(g_cu_error, sizeof(g_cu_error),
               "cannot open the CUDA driver %s (%s); is an NVIDIA driver installed?", driver_name(),
               why ? why : "unknown error");
      g_cu_loaded = -1;
    } else {
      g_cu_loaded = 1;
#define INGOT_X(name, symbol, args)                                                           \
  if (g_cu_loaded == 1) {                                                                     \
    *(void**)(&g_cu.name) = dlsym(h, symbol);                                                 \
    if (g_cu.name == NULL) {                                                                  \
      snprintf(g_cu_error, sizeof(g_cu_error), "the CUDA driver %s has no %s", driver_name(), \
               symbol);                                                                       \
      g_cu_loaded = -1;                                                                       \
    }                                                                                         \
  }
      INGOT_CU_FUNCTIONS(INGOT_X)
#undef INGOT_X
      *(void**)(&g_cu.cuGetErrorString) = dlsym(h, "cuGetErrorString");
      *(void**)(&g_cu.cuStreamBeginCapture) = dlsym(h, "cuStreamBeginCapture_v2");
      *(void**)(&g_cu.cuStreamEndCapture) = dlsym(h, "cuStreamEndCapture");
      *(void**)(&g_cu.cuGraphInstantiateWithFlags) = dlsym(h, "cuGraphInstantiateWithFlags");
      *(void**)(&g_cu.cuGraphLaunch) = dlsym(h, "cuGraphLaunch");
      *(void**)(&g_cu.cuGraphExecDestroy) = dlsym(h, "cuGraphExecDestroy");
      *(void**)(&g_cu.cuGraphDestroy) = dlsym(h, "cuGraphDestroy");
      CUresult r = g_cu_loaded == 1 ? g_cu.cuInit(0) : CUDA_SUCCESS;
      if (g_cu_loaded == 1 && r != CUDA_SUCCESS) {
        snprintf(g_cu_error, sizeof(g_cu_error), "the CUDA driver does not initialise: %s",
                 cu_error(r));
        g_cu_loaded = -1;
      }
    }
  }
  int ok = g_cu_loaded == 1;
  pthread_mutex_unlock(&g_cu_lock);
  return ok;
}

typedef struct CudaModel {
  CUdevice device;
  CUcontext context;
  CUmodule module;
  CUfunction* functions;
  int32_t num_functions;
  CUdeviceptr constants;
  char device_name[128];
} CudaModel;

typedef struct CudaSession {
  CUstream stream;
  CUdeviceptr workspace;
  CUdeviceptr* inputs;
  CUdeviceptr* outputs;
  CUgraph graph;
  CUgraphExec graph_exec;
  int graph_state; /* 0 not yet tried, 1 captured, -1 not used (unavailable, off or failed) */
} CudaSession;

static int graphs_available(void) {
  const char* env = getenv("INGOT_CUDA_GRAPHS");
  if (env && strcmp(env, "0") == 0) return 0;
  return g_cu.cuStreamBeginCapture && g_cu.cuStreamEndCapture && g_cu.cuGraphInstantiateWithFlags &&
         g_cu.cuGraphLaunch && g_cu.cuGraphExecDestroy && g_cu.cuGraphDestroy;
}

static size_t buffer_size(uint64_t bytes) {
  return bytes < INGOT_ALIGNMENT ? INGOT_ALIGNMENT : (size_t)bytes;
}

static void cuda_model_free(void* model) {
  CudaModel* d = model;
  if (d == NULL) return;
  if (d->context) g_cu.cuCtxSetCurrent(d->context);
  if (d->constants) g_cu.cuMemFree(d->constants);
  if (d->module) g_cu.cuModuleUnload(d->module);
  if (d->context) g_cu.cuDevicePrimaryCtxRelease(d->device);
  free(d->functions);
  free(d);
}

ingot_status ingot_cuda_model_init(const char* path, const IngotArtifact* a, void** out) {
  *out = NULL;
  const IngotDeviceCode* code = a->device_code;
  if (!load_cuda())
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' needs CUDA: %s", path, g_cu_error);
  int count = 0;
  if (g_cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0)
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' needs a CUDA device; none was found", path);
  const char* env = getenv("INGOT_CUDA_DEVICE");
  int ordinal = env && *env ? atoi(env) : 0;
  if (ordinal < 0 || ordinal >= count)
    return ingot_fail(INGOT_ERR_LOAD, "INGOT_CUDA_DEVICE=%d: there are only %d CUDA devices",
                      ordinal, count);
  CudaModel* d = calloc(1, sizeof(CudaModel));
  if (d == NULL) return ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "out of memory loading '%s'", path);
  CUresult r = g_cu.cuDeviceGet(&d->device, ordinal);
  if (r == CUDA_SUCCESS) {
    g_cu.cuDeviceGetName(d->device_name, (int)sizeof(d->device_name) - 1, d->device);
    r = g_cu.cuDevicePrimaryCtxRetain(&d->context, d->device);
  }
  if (r == CUDA_SUCCESS) r = g_cu.cuCtxSetCurrent(d->context);
  if (r != CUDA_SUCCESS) {
    cuda_model_free(d);
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s': no CUDA context on device %d: %s", path,
                      ordinal, cu_error(r));
  }
  /* The cubin where it was built for this device's architecture, else the PTX. */
  r = code->binary && code->binary_bytes ? g_cu.cuModuleLoadData(&d->module, code->binary) : 1;
  if (r != CUDA_SUCCESS) r = g_cu.cuModuleLoadData(&d->module, code->code);
  if (r != CUDA_SUCCESS) {
    cuda_model_free(d);
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s': its kernels do not load on %s: %s", path,
                      d->device_name, cu_error(r));
  }
  d->num_functions = code->num_functions;
  d->functions = calloc((size_t)code->num_functions + 1, sizeof(CUfunction));
  for (int32_t i = 0; d->functions && i < code->num_functions; ++i) {
    r = g_cu.cuModuleGetFunction(&d->functions[i], d->module, code->function_names[i]);
    if (r != CUDA_SUCCESS) {
      ingot_status st = ingot_fail(INGOT_ERR_LOAD, "artifact '%s': kernel %s not found: %s", path,
                                   code->function_names[i], cu_error(r));
      cuda_model_free(d);
      return st;
    }
  }
  r = g_cu.cuMemAlloc(&d->constants, buffer_size(a->constant_bytes));
  if (r == CUDA_SUCCESS && a->constant_bytes)
    r = g_cu.cuMemcpyHtoD(d->constants, code->constants, (size_t)a->constant_bytes);
  if (r != CUDA_SUCCESS || d->functions == NULL) {
    cuda_model_free(d);
    return ingot_fail(INGOT_ERR_OUT_OF_MEMORY,
                      "artifact '%s': cannot copy its %llu bytes of constants to the device", path,
                      (unsigned long long)a->constant_bytes);
  }
  *out = d;
  return INGOT_OK;
}

static void cuda_session_free(const IngotArtifact* a, void* session) {
  CudaSession* d = session;
  if (d == NULL) return;
  if (d->graph_exec) g_cu.cuGraphExecDestroy(d->graph_exec);
  if (d->graph) g_cu.cuGraphDestroy(d->graph);
  for (int32_t i = 0; d->inputs && i < a->num_inputs; ++i)
    if (d->inputs[i]) g_cu.cuMemFree(d->inputs[i]);
  for (int32_t i = 0; d->outputs && i < a->num_outputs; ++i)
    if (d->outputs[i]) g_cu.cuMemFree(d->outputs[i]);
  if (d->workspace) g_cu.cuMemFree(d->workspace);
  if (d->stream) g_cu.cuStreamDestroy(d->stream);
  free(d->inputs);
  free(d->outputs);
  free(d);
}

static ingot_status cuda_session_init(const IngotModel* m, void** out) {
  *out = NULL;
  const IngotArtifact* a = m->artifact;
  CudaModel* dm = m->device;
  CudaSession* d = calloc(1, sizeof(CudaSession));
  if (d == NULL) return ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "out of memory creating a session");
  d->inputs = calloc((size_t)a->num_inputs + 1, sizeof(CUdeviceptr));
  d->outputs = calloc((size_t)a->num_outputs + 1, sizeof(CUdeviceptr));
  CUresult r = d->inputs && d->outputs ? g_cu.cuCtxSetCurrent(dm->context) : 2;
  if (r == CUDA_SUCCESS) r = g_cu.cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING);
  if (r == CUDA_SUCCESS) r = g_cu.cuMemAlloc(&d->workspace, buffer_size(a->workspace_bytes));
  for (int32_t i = 0; r == CUDA_SUCCESS && i < a->num_inputs; ++i)
    r = g_cu.cuMemAlloc(&d->inputs[i], buffer_size(m->input_bytes[i]));
  for (int32_t i = 0; r == CUDA_SUCCESS && i < a->num_outputs; ++i)
    r = g_cu.cuMemAlloc(&d->outputs[i], buffer_size(m->output_bytes[i]));
  if (r != CUDA_SUCCESS) {
    cuda_session_free(a, d);
    return ingot_fail(INGOT_ERR_OUT_OF_MEMORY,
                      "cannot allocate a session of model '%s' on %s (workspace %llu bytes): %s",
                      a->model_name ? a->model_name : "", dm->device_name,
                      (unsigned long long)a->workspace_bytes, cu_error(r));
  }
  *out = d;
  return INGOT_OK;
}

/* Enqueues every launch of the model on the session's stream; begin/end (profiling) bracket
 * each kernel's launches with a synchronisation. */
static ingot_status launch_all(IngotSession* s, void (*begin)(void*, int32_t),
                               void (*end)(void*, int32_t)) {
  const IngotArtifact* a = s->model->artifact;
  const IngotDeviceCode* code = a->device_code;
  CudaModel* dm = s->model->device;
  CudaSession* d = s->device;
  const char* name = a->model_name ? a->model_name : "";
  CUdeviceptr ptrs[64];
  void* params[64];
  for (int32_t l = 0; l < code->num_launches; ++l) {
    const IngotDeviceLaunch* launch = &code->launches[l];
    int first = ingot_launch_opens_kernel(code, l), last = ingot_launch_closes_kernel(code, l);
    if (launch->num_args > 64)
      return ingot_fail(INGOT_ERR_RUN, "model '%s': launch %d has %d arguments (at most 64)", name,
                        (int)l, (int)launch->num_args);
    for (int32_t j = 0; j < launch->num_args; ++j) {
      const IngotDeviceArg* arg = &code->args[launch->first_arg + j];
      switch (arg->kind) {
        case INGOT_DEVICE_ARG_INPUT:
          ptrs[j] = d->inputs[arg->value];
          break;
        case INGOT_DEVICE_ARG_OUTPUT:
          ptrs[j] = d->outputs[arg->value];
          break;
        case INGOT_DEVICE_ARG_WORKSPACE:
          ptrs[j] = d->workspace + (CUdeviceptr)arg->value;
          break;
        default:
          ptrs[j] = dm->constants + (CUdeviceptr)arg->value;
          break;
      }
      params[j] = &ptrs[j];
    }
    if (begin && first) {
      g_cu.cuStreamSynchronize(d->stream);
      begin(s, launch->kernel);
    }
    CUresult r = g_cu.cuLaunchKernel(
        dm->functions[launch->function], launch->grid[0], launch->grid[1], launch->grid[2],
        launch->block[0], launch->block[1], launch->block[2], 0, d->stream, params, NULL);
    if (r != CUDA_SUCCESS) {
      g_cu.cuStreamSynchronize(d->stream);
      return ingot_fail(INGOT_ERR_RUN, "model '%s': CUDA launch of %s failed on %s: %s", name,
                        code->function_names[launch->function], dm->device_name, cu_error(r));
    }
    if (end && last) {
      g_cu.cuStreamSynchronize(d->stream);
      end(s, launch->kernel);
    }
  }
  return INGOT_OK;
}

/* Captures the session's launches into a CUDA Graph (graph_state 1), or marks graphs as not
 * used (-1) when the driver lacks them, they are switched off, or the capture fails; a failure
 * here is never the run's: the run then launches kernel by kernel and reports its own errors. */
static void capture_graph(IngotSession* s) {
  CudaSession* d = s->device;
  d->graph_state = -1;
  if (!graphs_available()) return;
  if (g_cu.cuStreamBeginCapture(d->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) != CUDA_SUCCESS)
    return;
  ingot_status launched = launch_all(s, NULL, NULL);
  CUgraph graph = NULL;
  CUresult r = g_cu.cuStreamEndCapture(d->stream, &graph);
  if (launched != INGOT_OK || r != CUDA_SUCCESS || graph == NULL) {
    if (graph) g_cu.cuGraphDestroy(graph);
    return;
  }
  if (g_cu.cuGraphInstantiateWithFlags(&d->graph_exec, graph, 0) != CUDA_SUCCESS) {
    d->graph_exec = NULL;
    g_cu.cuGraphDestroy(graph);
    return;
  }
  d->graph = graph;
  d->graph_state = 1;
}

static ingot_status cuda_session_run(IngotSession* s, void (*begin)(void*, int32_t),
                                     void (*end)(void*, int32_t)) {
  const IngotModel* m = s->model;
  const IngotArtifact* a = m->artifact;
  CudaModel* dm = m->device;
  CudaSession* d = s->device;
  const char* name = a->model_name ? a->model_name : "";
  CUresult r = g_cu.cuCtxSetCurrent(dm->context);
  int profiled = begin != NULL || end != NULL;
  if (r == CUDA_SUCCESS && !profiled && d->graph_state == 0) capture_graph(s);
  for (int32_t i = 0; r == CUDA_SUCCESS && i < a->num_inputs; ++i)
    if (m->input_bytes[i])
      r = g_cu.cuMemcpyHtoDAsync(d->inputs[i], s->inputs[i], m->input_bytes[i], d->stream);
  if (r != CUDA_SUCCESS)
    return ingot_fail(INGOT_ERR_RUN, "model '%s': cannot copy the inputs to %s: %s", name,
                      dm->device_name, cu_error(r));
  if (!profiled && d->graph_state == 1) {
    r = g_cu.cuGraphLaunch(d->graph_exec, d->stream);
    if (r != CUDA_SUCCESS) {
      g_cu.cuStreamSynchronize(d->stream);
      return ingot_fail(INGOT_ERR_RUN, "model '%s': CUDA graph launch failed on %s: %s", name,
                        dm->device_name, cu_error(r));
    }
  } else {
    ingot_status st = launch_all(s, begin, end);
    if (st != INGOT_OK) return st;
  }
  for (int32_t i = 0; r == CUDA_SUCCESS && i < a->num_outputs; ++i)
    if (m->output_bytes[i])
      r = g_cu.cuMemcpyDtoHAsync(s->outputs[i], d->outputs[i], m->output_bytes[i], d->stream);
  CUresult fin = g_cu.cuStreamSynchronize(d->stream);
  if (r != CUDA_SUCCESS || fin != CUDA_SUCCESS)
    return ingot_fail(INGOT_ERR_RUN, "model '%s': CUDA run on %s failed: %s", name, dm->device_name,
                      cu_error(r != CUDA_SUCCESS ? r : fin));
  return INGOT_OK;
}

const IngotDeviceOps ingot_cuda_ops = {"CUDA", cuda_session_init, cuda_session_free,
                                       cuda_session_run, cuda_model_free};
