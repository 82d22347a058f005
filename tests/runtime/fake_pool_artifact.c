/* A hand-written artifact that exercises the runtime's parallel_for: it runs `num_tasks` tasks,
 * optionally failing one, nesting a parallel_for in each or busy-waiting in each, and reports how
 * often each task ran, whether nested loops stayed on their outer task's thread, and how often a
 * thread's next task was not the one after its previous one (the pool's "jumps"), and how many
 * threads ran tasks. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "ingot/abi.h"

#define MAX_TASKS 4096
#define INNER_TASKS 4
#define MAX_THREADS 64

typedef struct PoolClosure {
  const IngotServices* services;
  atomic_int* runs; /* per task run count (in the workspace) */
  atomic_llong inner_hits;
  atomic_llong bad;
  int64_t fail_task;
  int64_t nested;
  int64_t spin_ns;
  atomic_llong claims;        /* order in which tasks started */
  int64_t order[MAX_TASKS];   /* each task's start order */
  int thread_slot[MAX_TASKS]; /* each task's thread, as an index into threads */
  pthread_mutex_t threads_lock;
  pthread_t threads[MAX_THREADS];
  int num_threads;
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

static int thread_slot(PoolClosure* c) {
  pthread_mutex_lock(&c->threads_lock);
  int slot = 0;
  while (slot < c->num_threads && !pthread_equal(c->threads[slot], pthread_self())) ++slot;
  if (slot == c->num_threads && slot < MAX_THREADS) c->threads[c->num_threads++] = pthread_self();
  pthread_mutex_unlock(&c->threads_lock);
  return slot;
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int32_t outer_task(int64_t task, int64_t num_tasks, void* closure) {
  (void)num_tasks;
  PoolClosure* c = (PoolClosure*)closure;
  atomic_fetch_add(&c->runs[task], 1);
  c->order[task] = atomic_fetch_add(&c->claims, 1);
  c->thread_slot[task] = thread_slot(c);
  for (int64_t start = now_ns(); c->spin_ns > 0 && now_ns() - start < c->spin_ns;) {
  }
  if (task == c->fail_task) return 7;
  if (c->nested) {
    InnerClosure inner = {c, pthread_self()};
    return c->services->parallel_for(c->services->ctx, inner_task, &inner, INNER_TASKS);
  }
  return 0;
}

static PoolClosure g_closure_storage[1];

/* Over the threads: how often a thread's next task (in start order) is not its previous + 1. */
static int64_t count_jumps(const PoolClosure* c, int64_t num_tasks) {
  static int64_t by_order[MAX_TASKS];
  int64_t last[MAX_THREADS + 1], jumps = 0;
  for (int i = 0; i <= MAX_THREADS; ++i) last[i] = -1;
  for (int64_t t = 0; t < num_tasks; ++t) by_order[c->order[t]] = t;
  for (int64_t k = 0; k < num_tasks; ++k) {
    int64_t t = by_order[k];
    int slot = c->thread_slot[t];
    if (last[slot] >= 0 && t != last[slot] + 1) jumps++;
    last[slot] = t;
  }
  return jumps;
}

static int32_t pool_entry(const IngotServices* services, void* const* inputs, void* const* outputs,
                          void* workspace, int64_t* symbols) {
  (void)symbols;
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
  c->spin_ns = *(const int64_t*)inputs[3];
  pthread_mutex_init(&c->threads_lock, NULL);
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
  ((int64_t*)outputs[3])[0] = rc == 0 && hits == num_tasks ? count_jumps(c, num_tasks) : -1;
  ((int64_t*)outputs[4])[0] = c->num_threads;
  pthread_mutex_destroy(&c->threads_lock);
  return rc;
}

static const int64_t kScalar[] = {1};
static const char* const kDims[] = {""};
static const IngotTensorInfo kInputs[] = {
    {"num_tasks", {0, 64, 1}, 1, kScalar, kDims},
    {"fail_task", {0, 64, 1}, 1, kScalar, kDims},
    {"nested", {0, 64, 1}, 1, kScalar, kDims},
    {"spin_ns", {0, 64, 1}, 1, kScalar, kDims},
};
static const IngotTensorInfo kOutputs[] = {
    {"hits", {0, 64, 1}, 1, kScalar, kDims},       {"bad", {0, 64, 1}, 1, kScalar, kDims},
    {"inner_hits", {0, 64, 1}, 1, kScalar, kDims}, {"jumps", {0, 64, 1}, 1, kScalar, kDims},
    {"threads", {0, 64, 1}, 1, kScalar, kDims},
};

__attribute__((visibility("default"))) const IngotArtifact ingot_artifact_v1 = {
    .magic = INGOT_ARTIFACT_MAGIC,
    .abi_version = INGOT_ABI_VERSION,
    .struct_size = sizeof(IngotArtifact),
    .model_name = "fake_pool",
    .target = "llvm",
    .device_type = 1,
    .num_inputs = 4,
    .inputs = kInputs,
    .num_outputs = 5,
    .outputs = kOutputs,
    .workspace_bytes = sizeof(atomic_int) * MAX_TASKS,
    .constant_bytes = 0,
    .entry = pool_entry,
    .num_kernels = 0,
    .kernels = 0,
};
