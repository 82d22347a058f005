/* A hand-written artifact that exercises the runtime's parallel_for: it runs `num_tasks` tasks,
 * optionally failing one or nesting a parallel_for in each, and reports how often each task ran
 * and whether nested loops stayed on their outer task's thread. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "ingot/abi.h"

#define MAX_TASKS 4096
#define INNER_TASKS 4

typedef struct PoolClosure {
  const IngotServices* services;
  atomic_int* runs; /* per task run count (in the workspace) */
  atomic_llong inner_hits;
  atomic_llong bad;
  int64_t fail_task;
  int64_t nested;
  pthread_t outer_thread[MAX_TASKS];
} PoolClosure;

typedef struct InnerClosure {
  PoolClosure* outer;
  pthread_t thread;
} InnerClosure;

static int32_t inner_task(int64_t task, int64_t num_tasks, void* closure) {
  (void)task;
  (void)num_tasks;
  InnerClosure* c = (InnerClosure*)closure;
  atomic_fetch_add(&c->outer->inner_hits, 1);
  if (!pthread_equal(c->thread, pthread_self())) atomic_fetch_add(&c->outer->bad, 1);
  return 0;
}

static int32_t outer_task(int64_t task, int64_t num_tasks, void* closure) {
  (void)num_tasks;
  PoolClosure* c = (PoolClosure*)closure;
  atomic_fetch_add(&c->runs[task], 1);
  if (task == c->fail_task) return 7;
  if (c->nested) {
    InnerClosure inner = {c, pthread_self()};
    return c->services->parallel_for(c->services->ctx, inner_task, &inner, INNER_TASKS);
  }
  return 0;
}

static PoolClosure g_closure_storage[1];

static int32_t pool_entry(const IngotServices* services, void* const* inputs, void* const* outputs,
                          void* workspace) {
  int64_t num_tasks = *(const int64_t*)inputs[0];
  if (num_tasks < 0 || num_tasks > MAX_TASKS) {
    services->set_error(services->ctx, "num_tasks out of range");
    return 1;
  }
  PoolClosure* c = g_closure_storage; /* tests run this artifact from one session at a time */
  memset(c, 0, sizeof(*c));
  c->services = services;
  c->runs = (atomic_int*)workspace;
  memset(workspace, 0, sizeof(atomic_int) * MAX_TASKS);
  c->fail_task = *(const int64_t*)inputs[1];
  c->nested = *(const int64_t*)inputs[2];
  int32_t rc = services->parallel_for(services->ctx, outer_task, c, num_tasks);
  int64_t hits = 0, bad = atomic_load(&c->bad);
  for (int64_t t = 0; t < num_tasks; ++t) {
    int runs = atomic_load(&c->runs[t]);
    hits += runs;
    if (runs > 1) bad++;
  }
  ((int64_t*)outputs[0])[0] = hits;
  ((int64_t*)outputs[1])[0] = bad;
  ((int64_t*)outputs[2])[0] = atomic_load(&c->inner_hits);
  return rc;
}

static const int64_t kScalar[] = {1};
static const char* const kDims[] = {""};
static const IngotTensorInfo kInputs[] = {
    {"num_tasks", {0, 64, 1}, 1, kScalar, kDims},
    {"fail_task", {0, 64, 1}, 1, kScalar, kDims},
    {"nested", {0, 64, 1}, 1, kScalar, kDims},
};
static const IngotTensorInfo kOutputs[] = {
    {"hits", {0, 64, 1}, 1, kScalar, kDims},
    {"bad", {0, 64, 1}, 1, kScalar, kDims},
    {"inner_hits", {0, 64, 1}, 1, kScalar, kDims},
};

__attribute__((visibility("default"))) const IngotArtifact ingot_artifact_v1 = {
    .magic = INGOT_ARTIFACT_MAGIC,
    .abi_version = INGOT_ABI_VERSION,
    .struct_size = sizeof(IngotArtifact),
    .model_name = "fake_pool",
    .target = "llvm",
    .device_type = 1,
    .num_inputs = 3,
    .inputs = kInputs,
    .num_outputs = 3,
    .outputs = kOutputs,
    .workspace_bytes = sizeof(atomic_int) * MAX_TASKS,
    .constant_bytes = 0,
    .entry = pool_entry,
    .num_kernels = 0,
    .kernels = 0,
};
