/* Internal declarations shared by the runtime's C files (all hidden from the library's ABI). */
#ifndef INGOT_RUNTIME_INTERNAL_H_
#define INGOT_RUNTIME_INTERNAL_H_

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ingot/abi.h"
#include "ingot/runtime.h"

#define INGOT_ALIGNMENT 64

/* A device that runs device artifacts (opencl.c, cuda.c): its model state is made at load by its
 * init function, its session state by session_init. */
typedef struct IngotDeviceOps {
  const char* name; /* "OpenCL", "CUDA" */
  ingot_status (*session_init)(const IngotModel* m, void** out);
  void (*session_free)(const IngotArtifact* a, void* session);
  /* Writes the inputs, runs the launches (begin/end around each artifact kernel's launches when
   * profiling, else NULL), reads the outputs into the session's host buffers. */
  ingot_status (*session_run)(IngotSession* s, void (*begin)(void*, int32_t),
                              void (*end)(void*, int32_t));
  void (*model_free)(void* model);
} IngotDeviceOps;

struct IngotModel {
  void* handle; /* from dlopen */
  /* Device artifacts loaded to run: the device's operations and its model state (the built
   * program, the constants on the device). */
  const IngotDeviceOps* device_ops;
  void* device;
  const IngotArtifact* artifact;
  char* path;
  /* byte size of each input and output; for symbolic ones, at the symbols' largest values */
  size_t* input_bytes;
  size_t* output_bytes;
  /* per symbol: 1 when the artifact's value function computes it (no input dim names it) */
  uint8_t* value_symbol;
};

struct IngotSession {
  const IngotModel* model;
  /* 1 while a call that reads or writes the session's buffers is inside it: a second thread's
   * call is refused instead of racing it (session_guard.c). */
  atomic_int busy;
  int max_threads; /* threads of the shared pool a run may use (0: all) */
  void* device;    /* device artifacts: queue or stream, kernels, device buffers */
  void* workspace; /* CPU artifacts */
  /* Its size: workspace_bytes, or for a plan that is a function of the symbols (workspace_fn)
   * the largest any run has needed so far (it grows on a run that needs more). */
  size_t workspace_capacity;
  void** inputs;       /* bound data pointer per input (NULL: not set) */
  void** input_copies; /* session-owned buffers for copied inputs (lazily allocated) */
  void** outputs;      /* session-owned output buffers */
  int64_t** output_shapes;
  /* Symbolic artifacts: the shape of each set input, the symbols bound from them by the last run,
   * the output dims the shape function gave (flat) and each output buffer's size. */
  int64_t** input_shapes;
  int64_t* symbols;
  int64_t* output_dims;
  size_t* output_capacity;
  /* States (ABI 9): their buffers are outputs[num_outputs + k] (the entry takes them after the
   * outputs); the shared length, and per state the shape and strides of ingot_session_state's
   * view. */
  int64_t state_length;
  int64_t** state_view_shapes;
  int64_t** state_view_strides;
  IngotServices services;
  /* set_error may be called from pool threads during a run; first message wins. */
  pthread_mutex_t error_lock;
  int has_run_error;
  char run_error[512];
  /* profiling */
  int profiling;
  double* kernel_start;
  double* kernel_total;
  int64_t* kernel_calls;
};

/* error.c: records the calling thread's last error; returns `status` for tail calls. */
ingot_status ingot_fail(ingot_status status, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ingot_clear_error(void);

/* memory.c */
void* ingot_aligned_alloc(size_t bytes); /* 64-byte aligned, zeroed; at least 64 bytes */
void ingot_aligned_free(void* p);
double ingot_now_seconds(void);

/* tensor_check.c: validates a DLTensor against the input's info. On success returns INGOT_OK and
 * sets *compact to 1 when the data can be used in place. */
ingot_status ingot_check_input_tensor(const IngotTensorInfo* info, const DLTensor* tensor,
                                      int* compact);
/* Copies a (possibly strided) CPU tensor into dense row-major dst. */
void ingot_copy_to_dense(const DLTensor* tensor, size_t elem_bytes, void* dst);
/* Formats "[1,3,224,224]" into buf. */
const char* ingot_format_shape(const int64_t* shape, int32_t ndim, char* buf, size_t buf_size);
/* Byte size of a tensor of this info, or SIZE_MAX on overflow / invalid shape. */
size_t ingot_tensor_bytes(const IngotTensorInfo* info);

/* symbols.c (ABI version 6): the symbol named `name` (-1: none); the symbol table and every
 * symbolic input dim checked at load; byte sizes at the symbols' largest values; the symbols of
 * a run bound from the set inputs' shapes (bounds and agreement checked, naming the input); the
 * run's output shapes from the shape function, growing output buffers that are too small. */
int32_t ingot_symbol_index(const IngotArtifact* a, const char* name);
ingot_status ingot_check_symbols(const char* path, const IngotArtifact* a);
size_t ingot_input_max_bytes(const IngotArtifact* a, const IngotTensorInfo* t);
ingot_status ingot_output_max_bytes(const char* path, const IngotArtifact* a,
                                    const uint8_t* value_symbol, size_t* bytes);
/* Sets value_symbol[k] for each symbol no input dim names (computed by the value function). */
void ingot_mark_value_symbols(const IngotArtifact* a, uint8_t* value_symbol);
ingot_status ingot_bind_symbols(IngotSession* s);
ingot_status ingot_update_output_shapes(IngotSession* s);
/* After a run whose counting kernels wrote data-dependent sizes into the symbols. */
ingot_status ingot_read_output_shapes(IngotSession* s);
/* Grows the session's workspace to what the bound symbols need (IngotArtifact.workspace_fn). */
ingot_status ingot_size_workspace(IngotSession* s);

/* state.c (ABI 9): whether symbol k is the states' length; the state table checked at load; the
 * length bound into the symbols before a run (within its bounds); a run that would pass a
 * state's capacity refused; the length moved on after a successful run. */
int ingot_is_state_symbol(const IngotArtifact* a, int32_t k);
ingot_status ingot_check_states(const char* path, const IngotArtifact* a);
ingot_status ingot_bind_state_length(IngotSession* s);
ingot_status ingot_check_state_room(const IngotSession* s);
void ingot_advance_states(IngotSession* s);

/* guard.c: checks every specialised input's bound data against the value the artifact was
 * compiled for; on a difference fails naming the input and both values. */
ingot_status ingot_check_specialized_inputs(const IngotModel* model, void* const* inputs);

/* session.c: marks the session busy for the calling thread, or fails naming `fn` when another
 * thread is inside a call on it; ingot_session_leave ends the call. */
ingot_status ingot_session_enter(IngotSession* s, const char* fn);
void ingot_session_leave(IngotSession* s);

/* thread_pool.c: the service handed to artifacts (ctx: the IngotSession). */
int32_t ingot_pool_parallel_for(void* ctx, IngotParallelBody body, void* closure,
                                int64_t num_tasks);

/* cpu_features.c: fails naming the features in `requirement` (an artifact's isa_features) that
 * this CPU lacks, or that this runtime cannot test. */
ingot_status ingot_check_isa(const char* path, const char* requirement);

/* opencl.c / cuda.c: the devices, and their model state made at load (the program built, the
 * constants copied). */
extern const IngotDeviceOps ingot_opencl_ops;
/* Whether launch l is the first / the last of the consecutive launches of its artifact kernel: the
 * bounds of that kernel's profiling hooks. */
static inline int ingot_launch_opens_kernel(const IngotDeviceCode* code, int32_t l) {
  return l == 0 || code->launches[l - 1].kernel != code->launches[l].kernel;
}
static inline int ingot_launch_closes_kernel(const IngotDeviceCode* code, int32_t l) {
  return l + 1 == code->num_launches || code->launches[l + 1].kernel != code->launches[l].kernel;
}
extern const IngotDeviceOps ingot_cuda_ops;
ingot_status ingot_opencl_model_init(const char* path, const IngotArtifact* a, void** out);
ingot_status ingot_cuda_model_init(const char* path, const IngotArtifact* a, void** out);

/* elf_check.c: checks that `path` is a complete ELF shared object before dlopen (a truncated
 * file would otherwise fault when mapped). */
ingot_status ingot_check_elf_file(const char* path);

#endif /* INGOT_RUNTIME_INTERNAL_H_ */
