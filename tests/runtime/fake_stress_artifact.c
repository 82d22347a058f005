/* A hand-written artifact for the concurrency tests: y[r] = sum_c x[r][c] * w[c] + r, rows split
 * over the runtime's parallel_for (one task per 8 rows), each row through the session's
 * workspace. With FAKE_GATE the entry first marks `fake_gate_entered` and waits until the test
 * sets `fake_gate_open`, so a test can hold a run inside the artifact. */
#include <stdatomic.h>
#include <stdint.h>

#include "ingot/abi.h"

#define ROWS 64
#define COLS 96
#define ROWS_PER_TASK 8

#ifdef FAKE_GATE
__attribute__((visibility("default"))) atomic_int fake_gate_entered;
__attribute__((visibility("default"))) atomic_int fake_gate_open;
#endif

typedef struct Closure {
  const float* x;
  float* y;
  float* workspace;
} Closure;

static float weight(int c) {
  return (float)((c * 37) % 11) * 0.125f - 0.5f;
}

static int32_t rows_task(int64_t task, int64_t num_tasks, void* closure) {
  (void)num_tasks;
  Closure* k = (Closure*)closure;
  for (int r = (int)task * ROWS_PER_TASK; r < (int)(task + 1) * ROWS_PER_TASK; ++r) {
    float* row = k->workspace + (int64_t)r * COLS;
    for (int c = 0; c < COLS; ++c) row[c] = k->x[r * COLS + c] * weight(c);
    float acc = (float)r;
    for (int c = 0; c < COLS; ++c) acc += row[c];
    k->y[r] = acc;
  }
  return 0;
}

static int32_t entry(const IngotServices* services, void* const* inputs, void* const* outputs,
                     void* workspace, int64_t* symbols) {
  (void)symbols;
#ifdef FAKE_GATE
  atomic_store(&fake_gate_entered, 1);
  while (!atomic_load(&fake_gate_open)) {
  }
#endif
  Closure k = {(const float*)inputs[0], (float*)outputs[0], (float*)workspace};
  return services->parallel_for(services->ctx, rows_task, &k, ROWS / ROWS_PER_TASK);
}

static const int64_t kShapeX[] = {ROWS, COLS};
static const int64_t kShapeY[] = {ROWS};
static const char* const kDimsX[] = {"", ""};
static const char* const kDimsY[] = {""};
static const IngotTensorInfo kInputs[] = {{"x", {2, 32, 1}, 2, kShapeX, kDimsX, 0}};
static const IngotTensorInfo kOutputs[] = {{"y", {2, 32, 1}, 1, kShapeY, kDimsY, 0}};
static const IngotKernelInfo kKernels[] = {
    {"rows", 2.0 * ROWS* COLS, 4.0 * ROWS*(COLS + 1), "MatMul+Add"}};

__attribute__((visibility("default"))) const IngotArtifact ingot_artifact_v1 = {
    .magic = INGOT_ARTIFACT_MAGIC,
    .abi_version = INGOT_ABI_VERSION,
    .struct_size = sizeof(IngotArtifact),
    .model_name = "fake_stress",
    .target = "c",
    .device_type = 1,
    .num_inputs = 1,
    .inputs = kInputs,
    .num_outputs = 1,
    .outputs = kOutputs,
    .workspace_bytes = sizeof(float) * ROWS * COLS,
    .constant_bytes = 0,
    .entry = entry,
    .num_kernels = 1,
    .kernels = kKernels,
    .isa_features = "",
    .device_code = 0,
};
