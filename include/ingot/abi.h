/* ingot artifact ABI: the record a compiled artifact exports and the service table the runtime
 * hands to it on every call. Shared by the compiler (which emits it) and the runtime (which reads
 * it); plain C, no dependencies beyond <stdint.h>. See docs/abi.md. */
#ifndef INGOT_ABI_H_
#define INGOT_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "INGOTART" little-endian. */
#define INGOT_ARTIFACT_MAGIC 0x545241544F474E49ull
/* 2: IngotTensorInfo gained `specialized_value` (guarded input specialization).
 * 3: IngotArtifact gained `isa_features` (the CPU features the code needs, checked at load).
 * 4: IngotArtifact gained `device_code` (GPU artifacts: device kernels and their launches).
 * 5: IngotKernelInfo gained `ops` (the graph ops fused into the kernel), and every artifact file
 *    ends with an IngotArtifactTrailer (a checksum of the file, verified before dlopen).
 * 6: symbolic dims: IngotArtifact gained `num_symbols`, `symbols` and `shape_fn`, the entry takes
 *    the bound symbols, and a symbolic dim's `shape` entry is -1 (docs/abi.md).
 * 7: IngotArtifact gained `workspace_fn`: the workspace a symbolic model needs for the bound
 *    symbols (its memory plan is a function of them), and `value_fn`: symbols that the values of
 *    shape-deciding inputs decide.
 * 8: data-dependent sizes: the entry writes them into its `symbols` (no longer const).
 * 9: IngotArtifact gained `num_states` and `states`: buffers a session keeps between runs (a
 *    key/value cache, `ingot compile --kv-cache`), passed to the entry after the outputs. */
#define INGOT_ABI_VERSION 9u
/* The one exported symbol of an artifact: `const IngotArtifact ingot_artifact_v1;` */
#define INGOT_ARTIFACT_SYMBOL "ingot_artifact_v1"

/* Element type codes follow DLPack's DLDataTypeCode: 0 int, 1 uint, 2 float, 4 bfloat (bfloat16:
 * the upper 16 bits of a float32), 6 bool. */
typedef struct IngotDType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} IngotDType;

typedef struct IngotTensorInfo {
  const char* name;
  IngotDType dtype;
  int32_t ndim;
  /* ndim entries; -1 for a symbolic dim, whose size the bound symbols decide (an input's is
   * the symbol its dim_names entry names; an output's comes from IngotArtifact.shape_fn). */
  const int64_t* shape;
  /* ndim entries: "" for a static dim; the symbol ("seq") or, for an output, the expression of
   * the symbols ("past+seq") of a symbolic one; for a dim bound at compile time (--input-shapes),
   * the model's symbol it was bound from. */
  const char* const* dim_names;
  /* Inputs only, else NULL: the value (dense, row-major, the tensor's byte size) this input was
   * specialised to at compile time (`ingot compile --specialize-inputs`). The artifact was built
   * for exactly these bytes; the runtime refuses to run it with any other value. */
  const void* specialized_value;
} IngotTensorInfo;

typedef struct IngotKernelInfo {
  const char* name;
  double flops;       /* floating point operations per call */
  double bytes_moved; /* bytes read + written per call (compulsory traffic) */
  const char* ops;    /* the graph ops computed by this kernel, "+"-separated ("Conv+Add+Relu") */
} IngotKernelInfo;

/* Body of a parallel loop: runs tasks [task, task+1) for task in [0, num_tasks). */
typedef int32_t (*IngotParallelBody)(int64_t task, int64_t num_tasks, void* closure);

/* Services the runtime provides to the artifact on each call (no symbol imports). */
typedef struct IngotServices {
  uint32_t abi_version; /* INGOT_ABI_VERSION */
  uint32_t struct_size; /* sizeof(IngotServices) of the runtime that built it */
  void* ctx;            /* opaque runtime context, passed back to every service */
  /* Runs body(t, n, closure) for t in [0, n) on the runtime's pool; returns the first
   * non-zero status any task returned, or 0. */
  int32_t (*parallel_for)(void* ctx, IngotParallelBody body, void* closure, int64_t num_tasks);
  /* Records an error message for the current run (the entry then returns non-zero). */
  void (*set_error)(void* ctx, const char* message);
  /* Optional per-kernel profiling hooks (NULL when not profiling). */
  void (*kernel_begin)(void* ctx, int32_t kernel_index);
  void (*kernel_end)(void* ctx, int32_t kernel_index);
} IngotServices;

/* Device artifacts (GPU targets). The artifact carries its device kernels as code for the device's
 * compiler or driver and the sequence of launches that runs the model; the runtime builds the
 * code once at load, keeps the constants, the workspace and the inputs and outputs in device
 * memory, and launches in order. */
#define INGOT_DEVICE_CODE_OPENCL_C 1 /* code: OpenCL C source, NUL-terminated */
#define INGOT_DEVICE_CODE_CUDA 2     /* code: PTX (NUL-terminated); binary: cubin for the arch */

/* Where a launch argument lives (the same four places as a CPU kernel's arguments). */
#define INGOT_DEVICE_ARG_INPUT 0     /* value: input index */
#define INGOT_DEVICE_ARG_OUTPUT 1    /* value: output index */
#define INGOT_DEVICE_ARG_WORKSPACE 2 /* value: byte offset in the workspace (64-byte aligned) */
#define INGOT_DEVICE_ARG_CONSTANT                                \
  3 /* value: byte offset in the constant blob (64-byte aligned) \
     */

typedef struct IngotDeviceArg {
  int32_t kind; /* INGOT_DEVICE_ARG_* */
  int32_t reserved;
  int64_t value;
} IngotDeviceArg;

/* One kernel launch: `function` over grid x block threads. OpenCL: a buffer argument is passed
 * as two kernel arguments, the buffer (cl_mem) and its byte offset (ulong). */
typedef struct IngotDeviceLaunch {
  int32_t function;  /* index into IngotDeviceCode.function_names */
  int32_t kernel;    /* the IngotArtifact kernel it is part of (profiles, errors) */
  uint32_t grid[3];  /* work-groups (thread blocks) per dimension */
  uint32_t block[3]; /* work-items (threads) per group per dimension */
  int32_t first_arg; /* its arguments: IngotDeviceCode.args[first_arg, first_arg + num_args) */
  int32_t num_args;
} IngotDeviceLaunch;

typedef struct IngotDeviceCode {
  int32_t format; /* INGOT_DEVICE_CODE_* */
  int32_t num_functions;
  const char* code; /* the device code, code_bytes long */
  uint64_t code_bytes;
  const char* const* function_names;
  int32_t num_launches; /* run in order on one in-order queue / stream */
  int32_t num_args;
  const IngotDeviceLaunch* launches;
  const IngotDeviceArg* args;
  const void* constants; /* the constant blob (IngotArtifact.constant_bytes), copied at load */
  const void* binary;    /* CUDA: the cubin for the target's arch (else NULL) */
  uint64_t binary_bytes;
} IngotDeviceCode;

/* Runs the model. inputs/outputs: one data pointer per IngotArtifact input/output, in order,
 * then (ABI 9) one per state after the outputs,
 * dense row-major, at least 64-byte aligned is best but any alignment of the element is valid.
 * workspace: workspace_bytes, 64-byte aligned. symbols: the value of each of the artifact's
 * symbols, in order, within its bounds (NULL when it has none). A data-dependent size (NonZero's
 * count; ABI 8) enters at its bound, which value_fn set, and the entry overwrites it with the
 * true size during the run: the caller reads the output shapes back with shape_fn after it.
 * Returns 0 on success. */
typedef int32_t (*IngotEntryFn)(const IngotServices* services, void* const* inputs,
                                void* const* outputs, void* workspace, int64_t* symbols);

/* A symbol of the artifact's dims ("seq"): an input dim binds it at run time, to a value in
 * [min_value, max_value]. The workspace is planned for the largest values. */
typedef struct IngotSymbolInfo {
  const char* name;
  int64_t min_value;
  int64_t max_value;
} IngotSymbolInfo;

/* Writes the dims of every output under `symbols` (one value per symbol, in order): outputs in
 * order, `ndim` values each, static dims included. Returns 0. */
typedef int32_t (*IngotShapeFn)(const int64_t* symbols, int64_t* output_dims);

/* Writes the bytes of workspace the entry needs under `symbols` (a multiple of 64; at most
 * workspace_bytes unless the model has value symbols). Returns 0. */
typedef int32_t (*IngotWorkspaceFn)(const int64_t* symbols, uint64_t* workspace_bytes);

/* Value symbols: the symbols no input dim names, which the values of shape-deciding inputs decide
 * (a Reshape's `shape` given by the caller). Reads the inputs and the symbols the input shapes
 * bound, writes the value symbols into `symbols`, and returns 0, or 1 + the index of the first
 * symbol whose input values are invalid (sizes that do not multiply out). */
typedef int32_t (*IngotValueFn)(void* const* inputs, int64_t* symbols);

/* A state (ABI 9): a buffer the session owns and keeps between runs, replacing a model input
 * `past` and the output `present = Concat(past, new, axis)` that a caller would otherwise copy
 * back (a decoder's key/value cache). `info` names the input it replaces, with the shape at its
 * capacity (every dim static). The entries [0, length) along `axis` are valid; a run reads them
 * as `past`, writes the new entries [length, length + step) in place and sees the whole
 * [0, length + step) as `present`. The runtime binds symbol `length_symbol` to the length
 * before the run and adds the step after it: symbol `step_symbol`'s value, or `step` when it
 * is -1. Every state of an artifact shares one length. */
typedef struct IngotStateInfo {
  IngotTensorInfo info;
  int32_t axis;
  int32_t length_symbol;
  int32_t step_symbol;
  int32_t reserved;
  int64_t step;
} IngotStateInfo;

typedef struct IngotArtifact {
  uint64_t magic;       /* INGOT_ARTIFACT_MAGIC */
  uint32_t abi_version; /* INGOT_ABI_VERSION */
  uint32_t struct_size; /* sizeof(IngotArtifact) of the compiler that built it */
  const char* model_name;
  const char* target;  /* target string, e.g. "llvm -mcpu=sapphirerapids" */
  int32_t device_type; /* DLPack DLDeviceType: 1 CPU, 2 CUDA, 4 OpenCL */
  int32_t num_inputs;
  const IngotTensorInfo* inputs;
  int32_t num_outputs;
  const IngotTensorInfo* outputs;
  uint64_t workspace_bytes;
  uint64_t constant_bytes;
  IngotEntryFn entry; /* CPU artifacts; NULL for device artifacts (see device_code) */
  int32_t num_kernels;
  const IngotKernelInfo* kernels;
  /* The CPU features the code may use, as LLVM names them, comma-separated ("avx,avx2,fma" on
   * x86-64, "neon,dotprod" on aarch64; "" for none beyond the architecture's baseline). The
   * runtime refuses to load the artifact on a CPU that lacks any of them (CPUID / HWCAP). */
  const char* isa_features;
  /* Device artifacts: their kernels and launches; NULL for CPU artifacts. */
  const IngotDeviceCode* device_code;
  /* Symbolic dims (version 6): the symbols, and the output shapes as a function of them; 0, NULL
   * and NULL for an artifact whose shapes are all static. */
  int32_t num_symbols;
  const IngotSymbolInfo* symbols;
  IngotShapeFn shape_fn;
  /* Version 7: the workspace for the bound symbols; NULL when it is workspace_bytes for every
   * binding (static models). workspace_bytes is then the largest, at the symbols' bounds. */
  IngotWorkspaceFn workspace_fn;
  /* Version 7: the value symbols' function; NULL when every symbol is an input dim. */
  IngotValueFn value_fn;
  /* Version 9: the states (0 and NULL for none); the entry takes their buffers after the
   * outputs'. */
  int32_t num_states;
  const IngotStateInfo* states;
} IngotArtifact;

/* The last bytes of every artifact file (after the ELF image; the loader ignores them): a
 * checksum of everything before it, written by the compiler when it links the artifact and
 * verified by the runtime before the file is mapped. Little-endian, 32 bytes, magic last. */
#define INGOT_TRAILER_MAGIC 0x4D5553544F474E49ull /* "INGOTSUM" little-endian */
#define INGOT_CHECKSUM_XXH3_64 1u                 /* XXH3_64bits, seed 0 (xxHash 0.8) */
typedef struct IngotArtifactTrailer {
  uint64_t payload_bytes; /* bytes before the trailer: the file's size - sizeof(trailer) */
  uint64_t checksum;      /* of those bytes, by `checksum_kind` */
  uint32_t checksum_kind; /* INGOT_CHECKSUM_* */
  uint32_t abi_version;   /* INGOT_ABI_VERSION of the record inside (read before dlopen) */
  uint64_t magic;         /* INGOT_TRAILER_MAGIC */
} IngotArtifactTrailer;

#ifdef __cplusplus
}
#endif

#endif /* INGOT_ABI_H_ */
