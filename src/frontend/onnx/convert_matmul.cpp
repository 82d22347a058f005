// Converters for Gemm (all attributes made explicit), MatMul and Det (batched determinant).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

void convert_gemm(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("alpha", c.attr_float("alpha").value_or(1.0));
  attrs.set("beta", c.attr_float("beta").value_or(1.0));
  attrs.set("transA", c.attr_int("transA").value_or(0));
  attrs.set("transB", c.attr_int("transB").value_or(0));
  c.emit(ops::OpKind::Gemm, {c.input(0, "A"), c.input(1, "B"), c.optional_input(2)}, attrs);
}

void convert_matmul(NodeConverter& c) {
  c.emit(ops::OpKind::MatMul, {c.input(0, "A"), c.input(1, "B")});
}

void convert_det(NodeConverter& c) {
  c.emit(ops::OpKind::Det, {c.input(0, "X")});
}

const ConverterEntry kTable[] = {
    {"Gemm", 7, kMaxOnnxOpset, convert_gemm},
    {"MatMul", 7, kMaxOnnxOpset, convert_matmul},
    {"Det", 11, kMaxOnnxOpset, convert_det},
};

}  // namespace

std::span<const ConverterEntry> matmul_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
