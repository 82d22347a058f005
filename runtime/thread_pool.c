/* The process-wide thread pool behind IngotServices.parallel_for. A job's tasks are split into
 * one contiguous range per thread (the caller's first); each thread runs its own range in order,
 * then takes what is left of the others' ranges, so a thread that starts late or is descheduled
 * does not hold the job up. Contiguous ranges matter: a kernel's neighbouring tasks share their
 * operands (a conv's weight block for several output rows), and when two threads interleave
 * tasks both caches load every block (ResNet-50's 2-thread run was 1.73x its 1-thread run with
 * one shared task counter). The first non-zero task status is returned. Nested calls, and calls
 * made while another thread's job holds the pool, run serially on the caller. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* How long a waiting thread spins before it sleeps on a condition variable: long enough that
 * the workers stay awake between the kernels of one inference (a futex wake-up per kernel costs
 * tens of microseconds, more in a VM; a model of 100+ small kernels paid milliseconds), short
 * enough that an idle pool soon stops using CPUs. ONNX Runtime's and OpenMP's pools spin too. */
#define SPIN_NS 200000

/* One thread's range of a job's tasks: next task to claim and the end, on their own cache line. */
typedef struct TaskRange {
  _Alignas(64) atomic_int_fast64_t next;
  int64_t end;
} TaskRange;

typedef struct Pool Pool;
typedef struct Worker {
  Pool* pool;
  int index; /* 1..num_workers; the caller's range is 0 */
} Worker;

struct Pool {
  pthread_mutex_t job_lock; /* held by the caller whose job the workers run */
  pthread_mutex_t lock;     /* guards generation changes, shutdown and the condition waits */
  pthread_cond_t wake;
  pthread_cond_t done;
  int num_threads; /* workers + the caller */
  int num_workers;
  pthread_t* workers;
  Worker* worker_args;
  TaskRange* ranges; /* num_threads of them */
  int shutdown;
  atomic_uint_fast64_t generation;
  uint_fast64_t start_generation; /* generation when the workers were started */
  IngotParallelBody body;
  void* closure;
  int64_t num_tasks;
  int job_threads; /* threads of this job (<= num_threads): workers 1..job_threads-1 join */
  atomic_int status;
  atomic_uint_fast64_t closed; /* the generation whose tasks are all claimed (no worker joins) */
  atomic_int active;           /* workers inside the current job's tasks */
};

static Pool g_pool = {.job_lock = PTHREAD_MUTEX_INITIALIZER,
                      .lock = PTHREAD_MUTEX_INITIALIZER,
                      .wake = PTHREAD_COND_INITIALIZER,
                      .done = PTHREAD_COND_INITIALIZER};
static pthread_mutex_t g_config_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_started;
static _Thread_local int t_in_parallel;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin while *value == unchanged (spin_while) or while it is positive (spin_until_zero), for at
 * most SPIN_NS; the clock is read every 256 pauses. */
static void spin_while(const atomic_uint_fast64_t* value, uint_fast64_t unchanged) {
  uint64_t start = now_ns();
  for (unsigned i = 1; atomic_load(value) == unchanged; ++i) {
    cpu_relax();
    if ((i & 255u) == 0 && now_ns() - start > SPIN_NS) return;
  }
}

static void spin_until_zero(const atomic_int* value) {
  uint64_t start = now_ns();
  for (unsigned i = 1; atomic_load(value) > 0; ++i) {
    cpu_relax();
    if ((i & 255u) == 0 && now_ns() - start > SPIN_NS) return;
  }
}

static int read_int_file(const char* path, int* value) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return 0;
  int ok = fscanf(f, "%d", value) == 1;
  fclose(f);
  return ok;
}

/* Physical cores among the CPUs this process may run on (unique package/core pairs). */
static int default_num_threads(void) {
  const char* env = getenv("INGOT_NUM_THREADS");
  if (env != NULL && atoi(env) > 0) return atoi(env);
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
  }
  int logical = CPU_COUNT(&set);
  int* keys = calloc((size_t)logical + 1, sizeof(int));
  int physical = 0;
  for (int cpu = 0; keys != NULL && cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    char path[128];
    int core = 0, package = 0;
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
    if (!read_int_file(path, &core)) {
      physical = 0;
      break;
    }
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
    if (!read_int_file(path, &package)) package = 0;
    int key = package * 65536 + core, seen = 0;
    for (int i = 0; i < physical && !seen; ++i) seen = keys[i] == key;
    if (!seen && physical < logical) keys[physical++] = key;
  }
  free(keys);
  return physical > 0 ? physical : (logical > 0 ? logical : 1);
}

/* Runs the tasks of range `self` in order, then the rest of every other range; returns once
 * every task of the job is claimed. */
static void run_tasks(Pool* p, int self) {
  int T = p->job_threads;
  for (int k = 0; k < T; ++k) {
    TaskRange* r = &p->ranges[(self + k) % T];
    for (;;) {
      if (atomic_load_explicit(&p->status, memory_order_relaxed) != 0) return;
      int64_t t = atomic_fetch_add(&r->next, 1);
      if (t >= r->end) break;
      int32_t rc = p->body(t, p->num_tasks, p->closure);
      if (rc != 0) {
        int expected = 0;
        atomic_compare_exchange_strong(&p->status, &expected, rc);
      }
    }
  }
}

/* A worker joins job `g` only while it is open: it counts itself active first, then checks
 * that the job is still `g` and not closed, so the caller (which closes the job, then waits for
 * active == 0) either sees it active or it sees the job closed (sequentially consistent
 * atomics). Workers that wake late for a finished job never hold the caller up. */
static void* worker_main(void* arg) {
  Pool* p = ((Worker*)arg)->pool;
  int self = ((Worker*)arg)->index;
  uint_fast64_t seen = p->start_generation;
  t_in_parallel = 1; /* anything a task starts on a worker runs serially */
  for (;;) {
    spin_while(&p->generation, seen);
    pthread_mutex_lock(&p->lock);
    while (atomic_load(&p->generation) == seen && !p->shutdown)
      pthread_cond_wait(&p->wake, &p->lock);
    if (p->shutdown) {
      pthread_mutex_unlock(&p->lock);
      return NULL;
    }
    pthread_mutex_unlock(&p->lock);
    uint_fast64_t g = atomic_load(&p->generation);
    seen = g;
    atomic_fetch_add(&p->active, 1);
    if (atomic_load(&p->generation) == g && atomic_load(&p->closed) != g && self < p->job_threads)
      run_tasks(p, self);
    if (atomic_fetch_sub(&p->active, 1) == 1) {
      pthread_mutex_lock(&p->lock);
      pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->lock);
    }
  }
}

/* Requires g_config_lock and the job lock. */
static void stop_workers(Pool* p) {
  pthread_mutex_lock(&p->lock);
  p->shutdown = 1;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < p->num_workers; ++i) pthread_join(p->workers[i], NULL);
  free(p->workers);
  free(p->worker_args);
  free(p->ranges);
  p->workers = NULL;
  p->worker_args = NULL;
  p->ranges = NULL;
  p->num_workers = 0;
  p->shutdown = 0;
}

/* Requires g_config_lock and the job lock. Falls back to fewer threads if creation fails. */
static void start_workers(Pool* p, int num_threads) {
  p->num_threads = num_threads < 1 ? 1 : num_threads;
  p->workers = calloc((size_t)p->num_threads, sizeof(pthread_t));
  p->worker_args = calloc((size_t)p->num_threads, sizeof(Worker));
  p->ranges = aligned_alloc(_Alignof(TaskRange), (size_t)p->num_threads * sizeof(TaskRange));
  p->num_workers = 0;
  p->start_generation = atomic_load(&p->generation);
  int ok = p->workers != NULL && p->worker_args != NULL && p->ranges != NULL;
  for (int i = 0; ok && i < p->num_threads - 1; ++i) {
    p->worker_args[i] = (Worker){p, i + 1};
    if (pthread_create(&p->workers[i], NULL, worker_main, &p->worker_args[i]) != 0) break;
    p->num_workers++;
  }
  p->num_threads = p->num_workers + 1;
  atomic_store(&g_started, 1);
}

static void ensure_started(void) {
  pthread_mutex_lock(&g_config_lock);
  if (!atomic_load(&g_started)) {
    pthread_mutex_lock(&g_pool.job_lock);
    start_workers(&g_pool, default_num_threads());
    pthread_mutex_unlock(&g_pool.job_lock);
  }
  pthread_mutex_unlock(&g_config_lock);
}

static int32_t run_serial(IngotParallelBody body, void* closure, int64_t num_tasks) {
  int outer = t_in_parallel;
  t_in_parallel = 1;
  int32_t rc = 0;
  for (int64_t t = 0; t < num_tasks && rc == 0; ++t) rc = body(t, num_tasks, closure);
  t_in_parallel = outer;
  return rc;
}

int32_t ingot_pool_parallel_for(void* ctx, IngotParallelBody body, void* closure,
                                int64_t num_tasks) {
  const IngotSession* session = (const IngotSession*)ctx;
  int limit = session != NULL ? session->max_threads : 0;
  if (num_tasks <= 0) return 0;
  if (t_in_parallel || num_tasks == 1 || limit == 1) return run_serial(body, closure, num_tasks);
  if (!atomic_load(&g_started)) ensure_started();
  Pool* p = &g_pool;
  if (pthread_mutex_trylock(&p->job_lock) != 0) return run_serial(body, closure, num_tasks);
  if (p->num_workers == 0) {
    pthread_mutex_unlock(&p->job_lock);
    return run_serial(body, closure, num_tasks);
  }
  p->body = body;
  p->closure = closure;
  p->num_tasks = num_tasks;
  int T = limit > 0 && limit < p->num_threads ? limit : p->num_threads;
  p->job_threads = T;
  for (int i = 0; i < T; ++i) {
    atomic_store(&p->ranges[i].next, num_tasks * i / T);
    p->ranges[i].end = num_tasks * (i + 1) / T;
  }
  atomic_store(&p->status, 0);
  pthread_mutex_lock(&p->lock);
  uint_fast64_t g = atomic_fetch_add(&p->generation, 1) + 1;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);

  t_in_parallel = 1;
  run_tasks(p, 0);
  t_in_parallel = 0;

  /* Every task is claimed: close the job, then wait only for the workers inside it. */
  atomic_store(&p->closed, g);
  spin_until_zero(&p->active);
  pthread_mutex_lock(&p->lock);
  while (atomic_load(&p->active) > 0) pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
  int32_t rc = atomic_load(&p->status);
  pthread_mutex_unlock(&p->job_lock);
  return rc;
}

INGOT_API ingot_status ingot_set_num_threads(int n) {
  pthread_mutex_lock(&g_config_lock);
  pthread_mutex_lock(&g_pool.job_lock);
  if (atomic_load(&g_started)) stop_workers(&g_pool);
  start_workers(&g_pool, n > 0 ? n : default_num_threads());
  pthread_mutex_unlock(&g_pool.job_lock);
  pthread_mutex_unlock(&g_config_lock);
  return INGOT_OK;
}

INGOT_API int ingot_get_num_threads(void) {
  ensure_started();
  pthread_mutex_lock(&g_config_lock);
  int n = g_pool.num_threads;
  pthread_mutex_unlock(&g_config_lock);
  return n;
}
