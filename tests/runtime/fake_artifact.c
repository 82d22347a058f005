/* A hand-written artifact for runtime tests: y = x * 2 + bias + c, count = #(y > 0), with x*2
 * staged in the workspace by a parallel_for kernel. -D flags build broken variants (magic, ABI
 * version, record size, device, no symbol, a specialised value on an output) for the loader's
 * error paths, and FAKE_SPECIALIZED_BIAS one whose input bias is specialised to
 * [0.25, 0.5, -10] (the run-time guard). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "ingot/abi.h"

#ifndef FAKE_MAGIC
#define FAKE_MAGIC INGOT_ARTIFACT_MAGIC
#endif
#ifndef FAKE_ABI_VERSION
#define FAKE_ABI_VERSION INGOT_ABI_VERSION
#endif
#ifndef FAKE_STRUCT_SIZE
#define FAKE_STRUCT_SIZE sizeof(IngotArtifact)
#endif
#ifndef FAKE_DEVICE_TYPE
#define FAKE_DEVICE_TYPE 1
#endif
#ifdef FAKE_NO_SYMBOL
#define FAKE_SYMBOL_NAME not_an_ingot_artifact
#else
#define FAKE_SYMBOL_NAME ingot_artifact_v1
#endif

#define ROWS 2
#define COLS 3

static const float kConstant[COLS] = {0.5f, 1.0f, 1.5f};

typedef struct ScaleClosure {
  const float* x;
  float* staged;
} ScaleClosure;

static int32_t scale_task(int64_t task, int64_t num_tasks, void* closure) {
  (void)num_tasks;
  ScaleClosure* c = (ScaleClosure*)closure;
  c->staged[task] = c->x[task] * 2.0f;
  return 0;
}

static int32_t fake_entry(const IngotServices* services, void* const* inputs, void* const* outputs,
                          void* workspace, int64_t* symbols) {
  (void)symbols;
  if (services->abi_version != INGOT_ABI_VERSION || services->struct_size < sizeof(IngotServices)) {
    return 90;
  }
  if ((uintptr_t)workspace % 64 != 0) {
    services->set_error(services->ctx, "workspace is not 64-byte aligned");
    return 1;
  }
  const float* x = (const float*)inputs[0];
  const float* bias = (const float*)inputs[1];
  float* y = (float*)outputs[0];
  int64_t* count = (int64_t*)outputs[1];
  for (int j = 0; j < COLS; ++j) {
    if (isnan(bias[j])) {
      services->set_error(services->ctx, "bias contains NaN");
      return 1;
    }
  }
  float* staged = (float*)workspace;
  ScaleClosure closure = {x, staged};
  if (services->kernel_begin) services->kernel_begin(services->ctx, 0);
  int32_t rc = services->parallel_for(services->ctx, scale_task, &closure, ROWS * COLS);
  if (services->kernel_end) services->kernel_end(services->ctx, 0);
  if (rc != 0) return rc;
  if (services->kernel_begin) services->kernel_begin(services->ctx, 1);
  int64_t positives = 0;
  for (int i = 0; i < ROWS; ++i) {
    for (int j = 0; j < COLS; ++j) {
      float v = staged[i * COLS + j] + bias[j] + kConstant[j];
      y[i * COLS + j] = v;
      positives += v > 0.0f;
    }
  }
  count[0] = positives;
  if (services->kernel_end) services->kernel_end(services->ctx, 1);
  return 0;
}

static const int64_t kShapeX[] = {ROWS, COLS};
static const int64_t kShapeBias[] = {COLS};
static const int64_t kShapeCount[] = {1};
static const char* const kDimsX[] = {"N", ""};
static const char* const kDimsBias[] = {""};

#ifdef FAKE_SPECIALIZED_BIAS
static const float kSpecializedBias[COLS] = {0.25f, 0.5f, -10.0f};
#define BIAS_VALUE kSpecializedBias
#else
#define BIAS_VALUE NULL
#endif
#ifdef FAKE_SPECIALIZED_OUTPUT
#define Y_VALUE kConstant
#else
#define Y_VALUE NULL
#endif

static const IngotTensorInfo kInputs[] = {
    {"x", {2, 32, 1}, 2, kShapeX, kDimsX, NULL},
    {"bias", {2, 32, 1}, 1, kShapeBias, kDimsBias, BIAS_VALUE},
};
static const IngotTensorInfo kOutputs[] = {
    {"y", {2, 32, 1}, 2, kShapeX, kDimsX, Y_VALUE},
    {"count", {0, 64, 1}, 1, kShapeCount, kDimsBias},
};
static const IngotKernelInfo kKernels[] = {
    {"fake_scale", 6.0, 48.0, "Mul"},
    {"fake_bias_add", 12.0, 84.0, "Add+Cast"},
};

__attribute__((visibility("default"))) const IngotArtifact FAKE_SYMBOL_NAME = {
    .magic = FAKE_MAGIC,
    .abi_version = FAKE_ABI_VERSION,
    .struct_size = FAKE_STRUCT_SIZE,
    .model_name = "fake_affine",
    .target = "llvm -mcpu=generic",
    .device_type = FAKE_DEVICE_TYPE,
    .num_inputs = 2,
    .inputs = kInputs,
    .num_outputs = 2,
    .outputs = kOutputs,
    .workspace_bytes = 64,
    .constant_bytes = sizeof(kConstant),
    .entry = fake_entry,
    .num_kernels = 2,
    .kernels = kKernels,
#ifdef FAKE_ISA_FEATURES
    .isa_features = FAKE_ISA_FEATURES,
#else
    .isa_features = "",
#endif
};
