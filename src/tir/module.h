// IRModule: what codegen consumes. Kernels, the ahead-of-time call sequence that runs them
// (with each argument placed in an input, output, the workspace arena or the constant blob),
// the model's interface and its constants. Knows nothing of graphs or ONNX.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tir/prim_func.h"

namespace ingot::tir {

struct TensorDesc {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  std::vector<std::string> dim_names;  // symbol per dim or "" (same length as shape)
  // Symbolic tensors: one int64 expression per dim over Vars named after IRModule::symbols
  // (constants for static dims), whose `shape` entries are -1; empty when all dims are static.
  std::vector<Expr> shape_exprs = {};
  // Inputs only: the value (dense bytes) the model was specialised to at compile time; the
  // artifact records it and the runtime refuses other values (IngotTensorInfo::specialized_value).
  std::optional<std::vector<uint8_t>> specialized_value = {};
};

// A symbol of the module's dims: input dims bind it at run time to a value in [min, max].
struct SymbolDesc {
  std::string name;
  int64_t min = 1;
  int64_t max = 1;
  Var var;  // the int64 Var that stands for it in shape_exprs and kernels (named `name`)
};

// A state (ABI 9): a buffer the session keeps between runs at its capacity (a key/value cache),
// which kernels reach as output outputs.size() + k. Its entries [0, length) along `axis` are
// valid; a run appends `step` more (symbol `step_symbol`, or the constant when -1). `length_symbol`
// and `step_symbol` index IRModule::symbols.
struct StateDesc {
  TensorDesc tensor;  // named after the input it replaces; static shape at capacity
  int axis = 0;
  int length_symbol = 0;
  int step_symbol = -1;
  int64_t step = 0;
};

struct ArgRef {
  // kWorkspaceAt: the workspace at a run-time offset (a plan that is a function of the symbols).
  // kSymbol: the entry's symbols table at one symbol's slot, an int64 that a counting kernel
  // writes (a data-dependent size: NonZero's count); the kernels after it read the new value.
  enum Kind : uint8_t { kInput, kOutput, kWorkspace, kConstant, kWorkspaceAt, kSymbol };
  Kind kind;
  // kInput/kOutput: index into IRModule::inputs/outputs; kWorkspace/kConstant: byte offset;
  // kWorkspaceAt: index into IRModule::workspace_offsets; kSymbol: index into IRModule::symbols.
  int64_t value;
};

// One step of the entry program: a kernel call, or control flow (If, Loop, Scan). Labels are
// small integers; a backend prints them as basic blocks (LLVM) or labels and `goto` (C99).
struct KernelCall {
  enum Op : uint8_t {
    kCall,          // run kernels[kernel] on args
    kBranchIfZero,  // jump to label `kernel` when the byte args[0] names is 0
    kJump,          // jump to label `kernel`
    kLabel,         // label `kernel` (the target of branches and jumps)
  };
  int kernel;                // kCall: index into IRModule::kernels; else a label id
  std::vector<ArgRef> args;  // kCall: one per kernel param, in order; kBranchIfZero: the flag
  Op op = kCall;
  bool is_call() const { return op == kCall; }
};

struct IRModule {
  std::string model_name;
  std::vector<PrimFunc> kernels;
  std::vector<KernelCall> entry;  // run in order by the entry function
  std::vector<TensorDesc> inputs, outputs;
  std::vector<StateDesc> states;  // ArgRef::kOutput outputs.size() + k
  // The symbols of symbolic dims, in the order the entry receives their values; a kernel's
  // shape_vars are matched to them by name.
  std::vector<SymbolDesc> symbols;
  uint64_t workspace_bytes = 0;  // arena size, multiple of 64 (at the symbols' max values)
  // A plan that is a function of the symbols (docs/dynamic-shapes.md, section 3): the arena's
  // size as an int64 expression of them (undefined: workspace_bytes for every binding), and the
  // run-time offsets kWorkspaceAt arguments index, each with the planner's slot (arguments in
  // different slots never overlap).
  Expr workspace_size;
  struct WorkspaceOffset {
    Expr offset;
    int slot = 0;
  };
  std::vector<WorkspaceOffset> workspace_offsets;
  // Value symbols (the symbols from `num_shape_symbols` on, which input *values* decide): a
  // serial kernel over the inputs `value_fn_inputs` (its first params, flat) and the symbols
  // table (its last param: one int64 per symbol, then a status), with the input shapes' symbols
  // as shape vars. It writes each value symbol, then the status: 0, or 1 + the index of the
  // first symbol whose input values are invalid (a Reshape whose sizes do not multiply out).
  std::optional<PrimFunc> value_fn;
  std::vector<int> value_fn_inputs;
  // The arena if no two intermediates shared memory (the memory plan's saving is the difference).
  uint64_t workspace_bytes_unshared = 0;
  std::vector<uint8_t> constants;  // constant blob; each ArgRef::kConstant offset 64-aligned
};

}  // namespace ingot::tir
