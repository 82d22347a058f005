// A small reference interpreter for loop IR, used to test lowering without a backend: runs
// statements on host memory (float16/32/64, integers, bool; scalar code only) with bounds
// checks on every load and store. Loop kinds are all run serially.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include "tir/module.h"
#include "tir/stmt.h"

namespace ingot::testing {

// Host storage for one dense tensor; values convert through double.
struct HostTensor {
  tir::DataType dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  HostTensor(tir::DataType d, std::vector<int64_t> s);
  HostTensor(tir::DataType d, std::vector<int64_t> s, const std::vector<double>& values);
  int64_t size() const;
  double get(int64_t i) const;
  void set(int64_t i, double v);
  std::vector<double> values() const;
  void* data() { return bytes.data(); }
};

// Thrown on an out-of-bounds access or an unsupported construct.
struct InterpreterError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class TirInterpreter {
 public:
  void bind(const tir::Buffer& buffer, void* data, int64_t nbytes);
  void exec(const tir::Stmt& s);
  // Evaluates to double (integers and bools converted).
  double eval(const tir::Expr& e);
  int64_t stores() const { return stores_; }

 private:
  struct Scalar {
    double f = 0;
    int64_t i = 0;
  };
  struct Binding {
    uint8_t* data = nullptr;
    int64_t nbytes = 0;
  };
  Scalar ev(const tir::Expr& e);
  Scalar binary(tir::NodeTag tag, const tir::Expr& a, const tir::Expr& b, tir::DataType d);
  int64_t offset(const tir::BufferNode* b, const std::vector<tir::Expr>& indices);
  Scalar read(const tir::BufferNode* b, int64_t off);
  void write(const tir::BufferNode* b, int64_t off, Scalar v);

  std::map<const tir::BufferNode*, Binding> buffers_;
  std::map<const tir::VarNode*, Scalar> vars_;
  // A BlockRealize (kept alive, so its address stays its own) -> its lowering to loops.
  std::map<const tir::StmtNode*, std::pair<tir::Stmt, tir::Stmt>> lowered_blocks_;
  std::vector<std::vector<uint8_t>> locals_;
  int64_t stores_ = 0;
};

// Runs one kernel with one host pointer per param (sizes in bytes for bounds checks).
void run_prim_func(const tir::PrimFunc& f, const std::vector<HostTensor*>& args);
// Runs the module's entry: allocates the workspace, binds constants from the blob.
void run_module(const tir::IRModule& m, const std::vector<HostTensor*>& inputs,
                const std::vector<HostTensor*>& outputs);

}  // namespace ingot::testing
