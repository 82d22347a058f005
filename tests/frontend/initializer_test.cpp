// Graph inputs, outputs, initializers (raw_data, typed fields, external data) and Constant nodes.
#include <gtest/gtest.h>

#include "onnx_builder.h"
#include "temp_dir.h"

namespace ingot::frontend::testing {
namespace {

using graph::DType;

// A model whose single output is `name` (an initializer or constant passed through Identity).
ModelBuilder passthrough(const onnx::TensorProto& t) {
  ModelBuilder b(13);
  b.init(t);
  b.node("Identity", {t.name()}, {"y"});
  b.output("y");
  return b;
}

const graph::Tensor& constant_of(const graph::Graph& g, const std::string& name) {
  const graph::Value* v = g.find_value(name);
  if (!v || !v->is_constant()) throw std::runtime_error("no constant " + name);
  return *v->constant;
}

TEST(OnnxInputs, StaticSymbolicAndMissingDims) {
  ModelBuilder b(13);
  auto* vi = b.input("x", {-1, 3, -1, 7});
  vi->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  b.input("ids", {5}, onnx::TensorProto::INT64);
  b.node("Relu", {"x"}, {"y"});
  b.node("Identity", {"ids"}, {"z"});
  b.output("z");
  b.output("y");
  auto g = b.import();
  ASSERT_EQ(g->inputs.size(), 2u);
  EXPECT_EQ(g->inputs[0]->name, "x");
  EXPECT_EQ(g->inputs[0]->type.dtype, DType::kF32);
  std::vector<graph::Dim> want = {graph::Dim::named("N"), graph::Dim::fixed(3),
                                  graph::Dim::named("x_dim2"), graph::Dim::fixed(7)};
  EXPECT_EQ(g->inputs[0]->type.shape, want);
  EXPECT_EQ(g->inputs[1]->type.dtype, DType::kI64);
  ASSERT_EQ(g->outputs.size(), 2u);
  EXPECT_EQ(g->outputs[0]->name, "z");
  EXPECT_EQ(g->outputs[1]->name, "y");
}

TEST(OnnxInputs, InitializersListedAsInputsAreNotRuntimeInputs) {
  ModelBuilder b(8);
  b.input("x", {2});
  b.input("w", {2});
  b.init(f32_tensor("w", {2}, {1.5f, -2.0f}));
  b.node("Add", {"x", "w"}, {"y"});
  b.output("y");
  auto g = b.import();
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->inputs[0]->name, "x");
  EXPECT_EQ(g->nodes()[0]->inputs[1], g->find_value("w"));
  EXPECT_EQ(f64_values(constant_of(*g, "w")), (std::vector<double>{1.5, -2.0}));
}

TEST(OnnxInputs, UnsupportedInputDtypeAndUnknownRank) {
  ModelBuilder b(13);
  b.input("s", {1}, onnx::TensorProto::STRING);
  b.node("Identity", {"s"}, {"y"});
  b.output("y");
  EXPECT_EQ(user_error([&] { b.import(); }), "graph input 's' has unsupported dtype STRING");
  ModelBuilder c(13);
  c.input("x", {1})->mutable_type()->mutable_tensor_type()->clear_shape();
  c.node("Identity", {"x"}, {"y"});
  c.output("y");
  EXPECT_EQ(user_error([&] { c.import(); }), "graph input 'x' has no shape (its rank is unknown)");
}

TEST(OnnxInitializers, RawAndTypedFloat) {
  for (bool raw : {true, false}) {
    auto g = passthrough(f32_tensor("w", {2, 2}, {1, 2, 3, 4.5f}, raw)).import();
    const graph::Tensor& t = constant_of(*g, "w");
    EXPECT_EQ(t.dtype(), DType::kF32);
    EXPECT_EQ(t.shape(), (Ints{2, 2}));
    EXPECT_EQ(f64_values(t), (std::vector<double>{1, 2, 3, 4.5})) << "raw=" << raw;
  }
}

TEST(OnnxInitializers, TypedFieldsOfEachDtype) {
  struct Case {
    int onnx_type;
    DType dtype;
    std::vector<int32_t> int32_data;
    Ints expect;
  };
  const Case cases[] = {
      {onnx::TensorProto::INT8, DType::kI8, {-3, 7}, {-3, 7}},
      {onnx::TensorProto::INT16, DType::kI16, {-300, 700}, {-300, 700}},
      {onnx::TensorProto::INT32, DType::kI32, {-70000, 5}, {-70000, 5}},
      {onnx::TensorProto::UINT8, DType::kU8, {200, 1}, {200, 1}},
      {onnx::TensorProto::UINT16, DType::kU16, {65535, 1}, {65535, 1}},
      {onnx::TensorProto::BOOL, DType::kBool, {1, 0}, {1, 0}},
  };
  for (const Case& c : cases) {
    onnx::TensorProto t;
    t.set_name("w");
    t.set_data_type(c.onnx_type);
    t.add_dims(2);
    for (int32_t v : c.int32_data) t.add_int32_data(v);
    auto g = passthrough(t).import();
    const graph::Tensor& w = constant_of(*g, "w");
    EXPECT_EQ(w.dtype(), c.dtype);
    EXPECT_EQ(i64_values(w), c.expect) << graph::dtype_name(c.dtype);
  }
}

// uint32 and uint64 live in the uint64_data field (onnx.proto), values past int64 included.
TEST(OnnxInitializers, Uint32AndUint64InUint64Data) {
  for (auto [onnx_type, dtype] : {std::pair{onnx::TensorProto::UINT32, DType::kU32},
                                  std::pair{onnx::TensorProto::UINT64, DType::kU64}}) {
    const uint64_t top = dtype == DType::kU32 ? 0xFFFFFFFFull : 0xFFFFFFFFFFFFFFFFull;
    onnx::TensorProto t;
    t.set_name("w");
    t.set_data_type(onnx_type);
    t.add_dims(3);
    for (uint64_t v : {top, uint64_t(7), top - 1}) t.add_uint64_data(v);
    auto g = passthrough(t).import();
    const graph::Tensor& w = constant_of(*g, "w");
    EXPECT_EQ(w.dtype(), dtype);
    EXPECT_EQ(w.num_elements(), 3);
    EXPECT_EQ(w.get_f64(0), double(top)) << graph::dtype_name(dtype);
    EXPECT_EQ(w.get_f64(1), 7.0);
    EXPECT_EQ(uint64_t(w.get_i64(2)), top - 1);  // the bits, two's complement for uint64
    t.add_uint64_data(1);                        // a fourth value for a 3-element shape
    EXPECT_THROW(passthrough(t).import(), UserError);
  }
}

TEST(OnnxInitializers, Float16InInt32DataAndDoubleAndInt64) {
  onnx::TensorProto h;
  h.set_name("w");
  h.set_data_type(onnx::TensorProto::FLOAT16);
  h.add_dims(2);
  h.add_int32_data(0x3C00);  // 1.0
  h.add_int32_data(0xC100);  // -2.5
  auto g = passthrough(h).import();
  const graph::Tensor& w = constant_of(*g, "w");
  EXPECT_EQ(w.dtype(), DType::kF16);
  EXPECT_EQ(w.data_as<uint16_t>()[0], 0x3C00);
  EXPECT_EQ(w.data_as<uint16_t>()[1], 0xC100);

  onnx::TensorProto d;
  d.set_name("w");
  d.set_data_type(onnx::TensorProto::DOUBLE);
  d.add_double_data(0.125);
  g = passthrough(d).import();
  EXPECT_EQ(constant_of(*g, "w").dtype(), DType::kF64);
  EXPECT_EQ(constant_of(*g, "w").shape(), Ints{});
  EXPECT_EQ(f64_values(constant_of(*g, "w")), std::vector<double>{0.125});

  g = passthrough(i64_tensor("w", {3}, {-1, 1LL << 40, 0}, /*raw=*/true)).import();
  EXPECT_EQ(i64_values(constant_of(*g, "w")), (Ints{-1, 1LL << 40, 0}));
}

TEST(OnnxInitializers, SizeMismatchesAndUnsupportedDtype) {
  onnx::TensorProto t = f32_tensor("w", {2, 2}, {1, 2, 3});
  EXPECT_EQ(user_error([&] { passthrough(t).import(); }),
            "initializer 'w' has 12 bytes of raw_data; its shape [2,2] and dtype float32 need 16");
  t = f32_tensor("w", {3}, {1, 2}, /*raw=*/false);
  EXPECT_EQ(user_error([&] { passthrough(t).import(); }),
            "initializer 'w' has 2 values in float_data; its shape [3] needs 3");
  t = f32_tensor("w", {1LL << 30, 1LL << 30}, {});
  EXPECT_EQ(user_error([&] { passthrough(t).import(); }),
            "initializer 'w' is too large (shape [1073741824,1073741824])");
  onnx::TensorProto s;
  s.set_name("w");
  s.set_data_type(onnx::TensorProto::COMPLEX64);
  EXPECT_EQ(user_error([&] { passthrough(s).import(); }),
            "initializer 'w' has unsupported dtype COMPLEX64");
}

// bfloat16 initializers: raw bytes, or one element's bits per int32_data entry (as float16).
TEST(OnnxInitializers, BFloat16FromRawDataAndInt32Data) {
  onnx::TensorProto raw;
  raw.set_name("w");
  raw.set_data_type(onnx::TensorProto::BFLOAT16);
  raw.add_dims(3);
  const uint8_t bytes[] = {0x80, 0x3f, 0xc0, 0xbf, 0x80, 0x7f};  // 1, -1.5, +inf
  raw.set_raw_data(bytes, sizeof(bytes));
  onnx::TensorProto typed = raw;
  typed.clear_raw_data();
  for (int32_t bits : {0x3f80, 0xbfc0, 0x7f80}) typed.add_int32_data(bits);
  for (const onnx::TensorProto& t : {raw, typed}) {
    auto g = passthrough(t).import();
    const graph::Tensor& w = constant_of(*g, "w");
    EXPECT_EQ(w.dtype(), DType::kBF16);
    EXPECT_EQ(w.get_f64(0), 1.0);
    EXPECT_EQ(w.get_f64(1), -1.5);
    EXPECT_EQ(w.get_f64(2), INFINITY);
  }
}

onnx::TensorProto external_tensor(const std::string& location, int64_t offset, int64_t length) {
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(3);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](const char* k, const std::string& v) {
    auto* e = t.add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", location);
  if (offset >= 0) add("offset", std::to_string(offset));
  if (length >= 0) add("length", std::to_string(length));
  return t;
}

TEST(OnnxInitializers, ExternalDataWithOffsetIsLoadedFromTheModelDirectory) {
  TempDir dir;
  std::vector<float> file = {9, 9, 1.5f, 2.5f, 3.5f};
  dir.write("weights.bin", std::string(reinterpret_cast<const char*>(file.data()), 20));
  ModelBuilder b = passthrough(external_tensor("weights.bin", 8, 12));
  std::string model = dir.write("m.onnx", b.bytes());
  auto g = import_onnx_file(model);
  EXPECT_EQ(f64_values(constant_of(*g, "w")), (std::vector<double>{1.5, 2.5, 3.5}));
}

TEST(OnnxInitializers, ExternalDataMissingOrTooShort) {
  TempDir dir;
  ModelBuilder missing = passthrough(external_tensor("nope.bin", -1, -1));
  EXPECT_EQ(user_error([&] { missing.import(dir.path()); }),
            "initializer 'w': external data file '" + dir.file("nope.bin") + "' does not exist");
  dir.write("short.bin", std::string(10, '\0'));
  ModelBuilder short_file = passthrough(external_tensor("short.bin", 0, -1));
  EXPECT_EQ(user_error([&] { short_file.import(dir.path()); }),
            "initializer 'w': external data file '" + dir.file("short.bin") +
                "' is too short (10 bytes; need 12 at offset 0)");
  ModelBuilder escaping = passthrough(external_tensor("../etc/passwd", 0, -1));
  EXPECT_EQ(user_error([&] { escaping.import(dir.path()); }),
            "initializer 'w': external data location '../etc/passwd' must be a relative path "
            "inside the model's directory");
}

TEST(OnnxConstants, ConstantNodeVariantsBecomeConstantValues) {
  ModelBuilder b(13);
  set_attr(b.node("Constant", {}, {"t"}), "value", f32_tensor("", {2}, {0.5f, 4}));
  set_attr(b.node("Constant", {}, {"f"}), "value_float", 2.5);
  set_attr(b.node("Constant", {}, {"fs"}), "value_floats", std::vector<float>{1, -1});
  set_attr(b.node("Constant", {}, {"i"}), "value_int", int64_t(-7));
  set_attr(b.node("Constant", {}, {"is"}), "value_ints", Ints{3, 4, 5});
  for (const char* name : {"t", "f", "fs", "i", "is"}) b.output(name);
  auto g = b.import();
  EXPECT_TRUE(g->nodes().empty());
  ASSERT_EQ(g->outputs.size(), 5u);
  for (const graph::Value* v : g->outputs) ASSERT_TRUE(v->is_constant()) << v->name;
  EXPECT_EQ(g->outputs[0]->name, "t");
  EXPECT_EQ(f64_values(*g->outputs[0]->constant), (std::vector<double>{0.5, 4}));
  EXPECT_EQ(g->outputs[1]->constant->shape(), Ints{});
  EXPECT_EQ(f64_values(*g->outputs[1]->constant), std::vector<double>{2.5});
  EXPECT_EQ(g->outputs[2]->constant->dtype(), DType::kF32);
  EXPECT_EQ(f64_values(*g->outputs[2]->constant), (std::vector<double>{1, -1}));
  EXPECT_EQ(g->outputs[3]->constant->dtype(), DType::kI64);
  EXPECT_EQ(i64_values(*g->outputs[3]->constant), Ints{-7});
  EXPECT_EQ(g->outputs[4]->constant->shape(), Ints{3});
  EXPECT_EQ(i64_values(*g->outputs[4]->constant), (Ints{3, 4, 5}));
}

TEST(OnnxConstants, UnsupportedConstantKinds) {
  ModelBuilder b(13);
  set_attr(b.node("Constant", {}, {"s"}, "c"), "value_string", "hello");
  b.output("s");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "node 'c' (Constant): attribute 'value_string' is not supported");
  ModelBuilder e(13);
  e.node("Constant", {}, {"s"}, "c");
  e.output("s");
  EXPECT_EQ(user_error([&] { e.import(); }), "node 'c' (Constant): has no value attribute");
}

}  // namespace
}  // namespace ingot::frontend::testing
