/* ingot runtime C API: load a compiled artifact (.so), query its inputs and outputs, create
 * sessions (each owns a workspace and output buffers), set inputs, run, read outputs.
 * Every call returns a status; ingot_last_error() gives the calling thread's last message. */
#ifndef INGOT_RUNTIME_H_
#define INGOT_RUNTIME_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#include "ingot/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define INGOT_API __attribute__((visibility("default")))
#else
#define INGOT_API
#endif

typedef enum ingot_status {
  INGOT_OK = 0,
  INGOT_ERR_INVALID_ARGUMENT = 1, /* a bad handle, index, tensor, dtype or shape */
  INGOT_ERR_LOAD = 2,             /* the artifact cannot be loaded or is not a valid artifact */
  INGOT_ERR_RUN = 3,              /* the model reported an error while running */
  INGOT_ERR_OUT_OF_MEMORY = 4,
} ingot_status;

typedef struct IngotModel IngotModel;
typedef struct IngotSession IngotSession;

/* The calling thread's last error message ("" when none). Valid until the next failing call. */
INGOT_API const char* ingot_last_error(void);

/* ---- models ---- */
/* Loads an artifact with dlopen(RTLD_LOCAL | RTLD_NOW) and validates its record. */
INGOT_API ingot_status ingot_model_load(const char* path, IngotModel** out);
/* Loads an artifact like ingot_model_load, also when this CPU lacks features the artifact's code
 * needs ("isa_features"): its record can be read, and ingot_session_create still refuses it.
 * Only ingot_model_load refuses it at load (the error names the missing features). */
INGOT_API ingot_status ingot_model_load_for_inspection(const char* path, IngotModel** out);
/* ingot_model_load with options, a bitwise OR of:
 *   INGOT_LOAD_FOR_INSPECTION  as ingot_model_load_for_inspection;
 *   INGOT_LOAD_SKIP_CHECKSUM   do not hash the file: its trailer (ABI version, size) is still
 *                              checked, but a flipped bit in its code or constants is not found.
 *                              Hashing reads the whole file once (36 ms for a 102 MB artifact in
 *                              the page cache); this is for very large models whose files are
 *                              otherwise trusted.
 * ingot_model_load verifies every artifact's checksum before mapping it. */
#define INGOT_LOAD_FOR_INSPECTION 1u
#define INGOT_LOAD_SKIP_CHECKSUM 2u
INGOT_API ingot_status ingot_model_load_ex(const char* path, uint32_t flags, IngotModel** out);
/* Frees a model. All its sessions must have been freed first. NULL is a no-op. */
INGOT_API void ingot_model_free(IngotModel* model);
INGOT_API int32_t ingot_model_num_inputs(const IngotModel* model);
INGOT_API int32_t ingot_model_num_outputs(const IngotModel* model);
/* NULL (and an error message) when the index is out of range. */
INGOT_API const IngotTensorInfo* ingot_model_input_info(const IngotModel* model, int32_t index);
INGOT_API const IngotTensorInfo* ingot_model_output_info(const IngotModel* model, int32_t index);
/* Index of the input/output with this name, or -1. */
INGOT_API int32_t ingot_model_find_input(const IngotModel* model, const char* name);
INGOT_API int32_t ingot_model_find_output(const IngotModel* model, const char* name);
/* The artifact's raw record (for inspection); owned by the model. */
INGOT_API const IngotArtifact* ingot_model_artifact(const IngotModel* model);

/* ---- sessions ---- */
/* A session owns a 64-byte-aligned workspace and the output buffers. Any number of sessions of
 * one model may run concurrently on different threads. One session serves one thread at a time:
 * a call on a session (set_input*, run, output, profiling) made while another thread is inside
 * a call on the same session fails with INGOT_ERR_INVALID_ARGUMENT ("in use by another thread")
 * and changes nothing. ingot_session_free must not race any other call on the session. */
INGOT_API ingot_status ingot_session_create(const IngotModel* model, IngotSession** out);
INGOT_API void ingot_session_free(IngotSession* session);
/* Binds input `index` to a DLTensor. A CPU tensor that is compact (strides NULL or row-major),
 * element-aligned and of the expected dtype and shape is used in place (zero-copy): it must stay
 * alive and unchanged until the next run finishes. Any other CPU layout is copied. */
INGOT_API ingot_status ingot_session_set_input(IngotSession* session, int32_t index,
                                               const DLTensor* tensor);
/* Copies nbytes (must equal the input's size) of dense row-major data into the session. */
INGOT_API ingot_status ingot_session_set_input_copy(IngotSession* session, int32_t index,
                                                    const void* data, size_t nbytes);
/* Runs the model; every input must have been set. */
INGOT_API ingot_status ingot_session_run(IngotSession* session);
/* Fills *out_view with a view of output `index` (CPU, compact, 64-byte aligned, owned by the
 * session, valid until the session is freed; overwritten by the next run). */
INGOT_API ingot_status ingot_session_output(const IngotSession* session, int32_t index,
                                            DLTensor* out_view);

/* ---- states (a key/value cache kept in the session; `ingot compile --kv-cache`) ---- */
/* The model's states: each replaces an input `past` and the output `present` that extends it.
 * A new session's states are empty (length 0). Each run reads the valid entries as `past`,
 * appends the new ones in place and moves the length on by them; a run that would pass the
 * capacity fails with one line and changes nothing. */
INGOT_API int32_t ingot_model_num_states(const IngotModel* model);
/* The state's name (the input it replaces), dtype and shape at its capacity. */
INGOT_API const IngotStateInfo* ingot_model_state_info(const IngotModel* model, int32_t index);
/* The number of valid entries along each state's axis (all states share it). */
INGOT_API ingot_status ingot_session_state_length(const IngotSession* session, int64_t* length);
/* Sets the length to `length` in [0, capacity]: 0 starts a new sequence; a smaller length rolls
 * the cache back (the entries past it are overwritten by the next run). Entries that were never
 * written read as zeros. */
INGOT_API ingot_status ingot_session_set_state_length(IngotSession* session, int64_t length);
/* Copies `tensor` (a CPU tensor of the state's dtype and shape, any length along its axis up to
 * the capacity) into state `index` as its valid entries, and sets the shared length to that
 * length. Load every state with the same length. */
INGOT_API ingot_status ingot_session_set_state(IngotSession* session, int32_t index,
                                               const DLTensor* tensor);
/* Fills *view with a strided view of state `index`'s valid entries (owned by the session; the
 * next run changes it). */
INGOT_API ingot_status ingot_session_state(const IngotSession* session, int32_t index,
                                           DLTensor* view);

/* At most n threads of the process-wide pool (the caller included) run this session's parallel
 * loops; 1 runs them on the calling thread only; n <= 0 (the default) allows the whole pool.
 * The pool runs one parallel loop at a time: a run whose loop finds the pool busy with another
 * session's loop runs that loop on its own thread, so concurrent sessions never wait for each
 * other and never oversubscribe the cores beyond (pool threads + concurrent callers). */
INGOT_API ingot_status ingot_session_set_num_threads(IngotSession* session, int n);

/* ---- profiling ---- */
/* Enables per-kernel timing through the artifact's kernel_begin/kernel_end hooks; enabling
 * resets the accumulated times. */
INGOT_API ingot_status ingot_session_set_profiling(IngotSession* session, int enable);
/* Accumulated wall time (seconds) and call count of kernel `kernel_index` since profiling was
 * enabled. The kernel names are in ingot_model_artifact(model)->kernels. */
INGOT_API ingot_status ingot_session_kernel_time(const IngotSession* session, int32_t kernel_index,
                                                 double* total_seconds, int64_t* calls);

/* ---- thread pool (process-wide) ---- */
/* Sets the number of threads used by parallel loops (the caller included). n <= 0 restores the
 * default: $INGOT_NUM_THREADS if set, else the number of physical cores available. */
INGOT_API ingot_status ingot_set_num_threads(int n);
INGOT_API int ingot_get_num_threads(void);

/* ---- the running CPU ---- */
/* Whether this CPU (and its OS) supports `feature`, by LLVM's name ("avx2", "avx512f", "neon",
 * "dotprod"): 1 yes, 0 no, -1 a name this runtime cannot test. Read from CPUID and XCR0 on
 * x86-64, AT_HWCAP/AT_HWCAP2 on aarch64 Linux; never from the CPU's model name. */
INGOT_API int ingot_cpu_supports(const char* feature);
/* The testable features this CPU has, comma-separated in a fixed order ("sse3,...,avx2,fma"). */
INGOT_API const char* ingot_cpu_features(void);

/* ---- helpers ---- */
/* Bytes of one element of `dtype` (bits * lanes rounded up to whole bytes). */
INGOT_API size_t ingot_dtype_bytes(IngotDType dtype);
/* Writes a short dtype name ("float32", "int64", "bool") into buf; returns buf. */
INGOT_API const char* ingot_dtype_name(IngotDType dtype, char* buf, size_t buf_size);

#ifdef __cplusplus
}
#endif

#endif /* INGOT_RUNTIME_H_ */
