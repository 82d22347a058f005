// Audio / signal-processing ops (opset 17+): the window generators HannWindow, HammingWindow and
// BlackmanWindow, DFT, STFT and MelWeightMatrix. Every input that decides an output shape (window
// size, dft_length, DFT axis, STFT frame_step / frame_length, mel bins and DFT length) is a
// compile-time constant kept as an attribute (docs/graph-forms.md).
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

bool is_float(DType d) {
  return is_float_dtype(d);
}

void require_flag(Node& n, const char* name, int64_t def) {
  int64_t v = n.attrs.get_int(name, def);
  if (v != 0 && v != 1)
    fail_user("{}: attribute '{}' must be 0 or 1, got {}", n.describe(), name, v);
  n.attrs.set(name, v);
}

int64_t required_int(const Node& n, const char* attr, const char* what) {
  if (!n.attrs.has(attr)) fail_user("{}: input '{}' is missing", n.describe(), what);
  return n.attrs.get_int(attr, 0);
}

// A static dim of `t` (UserError naming the input when symbolic).
int64_t static_dim(const Node& n, const TensorType& t, int d, const char* what) {
  if (!t.shape[size_t(d)].is_static())
    fail_user("{}: dim {} of input '{}' {} must be static", n.describe(), d, what, t.str());
  return t.shape[size_t(d)].value;
}

// The real/complex trailing dim of a signal: 1 or 2.
int64_t complex_dim(const Node& n, const TensorType& t, const char* what) {
  if (t.rank() < 1 || !t.shape.back().is_static() ||
      (t.shape.back().value != 1 && t.shape.back().value != 2))
    fail_user("{}: the last dim of input '{}' {} must be 1 (real) or 2 (complex)", n.describe(),
              what, t.str());
  return t.shape.back().value;
}

void require_float(const Node& n, const TensorType& t, const char* what) {
  if (!is_float(t.dtype))
    fail_user("{}: input '{}' must be float16, float32 or float64, got {}", n.describe(), what,
              t.str());
}

void require_int_scalar(const Node& n, int i, const char* what) {
  const TensorType& t = input_type(n, i, what);
  if (t.dtype != DType::kI32 && t.dtype != DType::kI64)
    fail_user("{}: input '{}' must be int32 or int64, got {}", n.describe(), what, t.str());
  if (!t.is_static() || t.num_elements() != 1)
    fail_user("{}: input '{}' {} must be a scalar", n.describe(), what, t.str());
}

void require_float_scalar(const Node& n, int i, const char* what) {
  const TensorType& t = input_type(n, i, what);
  require_float(n, t, what);
  if (!t.is_static() || t.num_elements() != 1)
    fail_user("{}: input '{}' {} must be a scalar", n.describe(), what, t.str());
}

// ---- windows ----

std::vector<TensorType> infer_window(Node& n) {
  if (!n.inputs.empty() && is_runtime_value(n.inputs[0])) {  // the caller's size: a value symbol
    const TensorType& st = n.inputs[0]->type;
    if (!st.is_static() || st.num_elements() != 1 ||
        (st.dtype != DType::kI64 && st.dtype != DType::kI32))
      fail_user("{}: input 'size' must be an integer scalar, got {}", n.describe(), st.str());
    require_flag(n, "periodic", 1);
    DType dt = DType(n.attrs.get_int("dtype", int64_t(DType::kF32)));
    n.attrs.set("dtype", int64_t(dt));
    return {TensorType{dt, {value_dim(n, 0, 0)}}};
  }
  int64_t size = required_int(n, "size", "size");
  if (size < 0) fail_user("{}: 'size' must not be negative, got {}", n.describe(), size);
  require_flag(n, "periodic", 1);
  DType dt = DType(n.attrs.get_int("dtype", int64_t(DType::kF32)));
  n.attrs.set("dtype", int64_t(dt));
  return {TensorType{dt, {Dim::fixed(size)}}};
}

double window_flops(const Node& n) {
  return 4.0 * double(n.attrs.get_int("size", 0));
}

// ---- DFT ----

// DFT whose axis the caller gives (opset 20): the normalised axis is a value symbol the kernel
// reads; when the transform changes its dim's length (onesided, or a dft_length), every dim it
// may run along is a value symbol too.
std::vector<TensorType> infer_dft_value_axis(Node& n) {
  const TensorType& x = n.inputs[0]->type;
  const TensorType& a = n.inputs[2]->type;
  if ((a.dtype != DType::kI64 && a.dtype != DType::kI32) || !a.is_static() || a.num_elements() != 1)
    fail_user("{}: input 'axis' must be one int32 or int64 value, got {}", n.describe(), a.str());
  if (!x.is_static())
    fail_user("{}: a run-time 'axis' needs a static input shape, got {}", n.describe(), x.str());
  require_flag(n, "inverse", 0);
  require_flag(n, "onesided", 0);
  const bool inverse = n.attrs.get_int("inverse", 0) != 0;
  const bool onesided = n.attrs.get_int("onesided", 0) != 0;
  if (n.attrs.has("dft_length") && n.attrs.get_int("dft_length", 0) < 1)
    fail_user("{}: 'dft_length' must be at least 1, got {}", n.describe(),
              n.attrs.get_int("dft_length", 0));
  TensorType out = x;
  out.shape.back() = Dim::fixed(inverse && onesided ? 1 : 2);
  if (onesided || n.attrs.has("dft_length"))
    for (int d = 0; d + 1 < x.rank(); ++d) out.shape[size_t(d)] = value_dim(n, 0, d);
  return {out};
}

std::vector<TensorType> infer_dft(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  require_float(n, x, "input");
  require_rank_at_least(n, x, 2, "input");
  complex_dim(n, x, "input");
  int r = x.rank();
  if (dft_reads_axis(n)) return infer_dft_value_axis(n);
  int64_t axis = n.attrs.get_int("axis", 1);
  if (axis < -r || axis > r - 2 || (axis < 0 && axis > -2))
    fail_user("{}: 'axis' = {} is out of range for input {} (the last dim holds the complex parts)",
              n.describe(), axis, x.str());
  axis = axis < 0 ? axis + r : axis;
  n.attrs.set("axis", axis);
  require_flag(n, "inverse", 0);
  require_flag(n, "onesided", 0);
  bool inverse = n.attrs.get_int("inverse", 0) != 0;
  bool onesided = n.attrs.get_int("onesided", 0) != 0;
  bool irfft = inverse && onesided;
  const Dim& in = x.shape[size_t(axis)];
  TensorType out = x;
  out.shape.back() = Dim::fixed(irfft ? 1 : 2);
  if (!n.attrs.has("dft_length") && !in.is_static()) {
    if (onesided)
      fail_user("{}: a onesided DFT needs a static dim {} or a constant 'dft_length'", n.describe(),
                axis);
    return {out};  // the transform keeps the symbolic length
  }
  int64_t len = n.attrs.has("dft_length") ? n.attrs.get_int("dft_length", 0)
                : irfft                   ? 2 * (in.value - 1)
                                          : in.value;
  if (len < 1) fail_user("{}: 'dft_length' must be at least 1, got {}", n.describe(), len);
  n.attrs.set("dft_length", len);
  out.shape[size_t(axis)] = Dim::fixed(onesided && !inverse ? len / 2 + 1 : len);
  return {out};
}

double dft_flops(const Node& n) {
  // A direct transform: one complex multiply-add (8 flops, 4 per output component) per input
  // sample per output bin.
  return 4.0 * approx_elements(n.outputs.at(0)->type) * double(n.attrs.get_int("dft_length", 1));
}

// ---- STFT ----

std::vector<TensorType> infer_stft(Node& n) {
  const TensorType& x = input_type(n, 0, "signal");
  require_float(n, x, "signal");
  if (x.rank() != 3)
    fail_user("{}: input 'signal' {} must have rank 3 [batch, length, 1 or 2]", n.describe(),
              x.str());
  complex_dim(n, x, "signal");
  int64_t length = static_dim(n, x, 1, "signal");
  if (stft_reads_values(n)) {  // the caller's step or frame length: frames (and bins) at run time
    for (size_t slot : {size_t(1), size_t(3)}) {
      if (slot >= n.inputs.size() || n.inputs[slot] == nullptr) continue;
      const TensorType& t = n.inputs[slot]->type;
      if ((t.dtype != DType::kI64 && t.dtype != DType::kI32) || !t.is_static() ||
          t.num_elements() != 1)
        fail_user("{}: input '{}' must be one int32 or int64 value, got {}", n.describe(),
                  slot == 1 ? "frame_step" : "frame_length", t.str());
    }
    if (has_input(n, 2)) {
      const TensorType& w = input_type(n, 2, "window");
      require_same_dtype(n, x, w, "signal", "window");
      if (w.rank() != 1) fail_user("{}: input 'window' {} must be 1-D", n.describe(), w.str());
      static_dim(n, w, 0, "window");
    }
    require_flag(n, "onesided", 1);
    const bool frame_at_run_time = n.inputs.size() > 3 && n.inputs[3] != nullptr;
    TensorType out{x.dtype, {x.shape[0], value_dim(n, 0, 1), Dim::fixed(1), Dim::fixed(2)}};
    if (frame_at_run_time) {
      out.shape[2] = value_dim(n, 0, 2);
    } else {
      const int64_t frame = n.attrs.has("frame_length") ? n.attrs.get_int("frame_length", 0)
                            : has_input(n, 2)           ? n.inputs[2]->type.shape[0].value
                                                        : length;
      out.shape[2] = Dim::fixed(n.attrs.get_int("onesided", 1) != 0 ? frame / 2 + 1 : frame);
    }
    return {out};
  }
  int64_t step = required_int(n, "frame_step", "frame_step");
  if (step < 1) fail_user("{}: 'frame_step' must be at least 1, got {}", n.describe(), step);
  int64_t window = -1;
  if (has_input(n, 2)) {
    const TensorType& w = input_type(n, 2, "window");
    require_same_dtype(n, x, w, "signal", "window");
    if (w.rank() != 1) fail_user("{}: input 'window' {} must be 1-D", n.describe(), w.str());
    window = static_dim(n, w, 0, "window");
  }
  int64_t frame = n.attrs.has("frame_length") ? n.attrs.get_int("frame_length", 0)
                  : window >= 0               ? window
                                              : length;
  if (window >= 0 && frame != window)
    fail_user("{}: 'frame_length' = {} differs from the window length {}", n.describe(), frame,
              window);
  if (frame < 1 || frame > length)
    fail_user("{}: 'frame_length' = {} must be in [1, {}] (the signal length)", n.describe(), frame,
              length);
  n.attrs.set("frame_length", frame);
  require_flag(n, "onesided", 1);
  bool onesided = n.attrs.get_int("onesided", 1) != 0;
  int64_t frames = (length - frame) / step + 1;
  return {TensorType{x.dtype,
                     {x.shape[0], Dim::fixed(frames), Dim::fixed(onesided ? frame / 2 + 1 : frame),
                      Dim::fixed(2)}}};
}

double stft_flops(const Node& n) {
  return 4.0 * approx_elements(n.outputs.at(0)->type) * double(n.attrs.get_int("frame_length", 1));
}

// ---- MelWeightMatrix ----

std::vector<TensorType> infer_mel(Node& n) {
  if (mel_reads_values(n)) {  // the caller's bin count or DFT length: value dims
    for (size_t slot : {size_t(0), size_t(1)}) {
      if (n.inputs[slot] == nullptr) continue;
      const TensorType& t = n.inputs[slot]->type;
      if ((t.dtype != DType::kI64 && t.dtype != DType::kI32) || !t.is_static() ||
          t.num_elements() != 1)
        fail_user("{}: input '{}' must be one int32 or int64 value, got {}", n.describe(),
                  slot == 0 ? "num_mel_bins" : "dft_length", t.str());
    }
    require_int_scalar(n, 2, "sample_rate");
    require_float_scalar(n, 3, "lower_edge_hertz");
    require_float_scalar(n, 4, "upper_edge_hertz");
    DType dt = DType(n.attrs.get_int("dtype", int64_t(DType::kF32)));
    n.attrs.set("dtype", int64_t(dt));
    TensorType out{dt, {value_dim(n, 0, 0), value_dim(n, 0, 1)}};
    if (n.inputs[1] == nullptr)
      out.shape[0] = Dim::fixed(required_int(n, "dft_length", "dft_length") / 2 + 1);
    if (n.inputs[0] == nullptr)
      out.shape[1] = Dim::fixed(required_int(n, "num_mel_bins", "num_mel_bins"));
    return {out};
  }
  int64_t bins = required_int(n, "num_mel_bins", "num_mel_bins");
  int64_t len = required_int(n, "dft_length", "dft_length");
  if (bins < 1) fail_user("{}: 'num_mel_bins' must be at least 1, got {}", n.describe(), bins);
  if (len < 1) fail_user("{}: 'dft_length' must be at least 1, got {}", n.describe(), len);
  require_int_scalar(n, 2, "sample_rate");
  require_float_scalar(n, 3, "lower_edge_hertz");
  require_float_scalar(n, 4, "upper_edge_hertz");
  DType dt = DType(n.attrs.get_int("dtype", int64_t(DType::kF32)));
  n.attrs.set("dtype", int64_t(dt));
  return {TensorType{dt, {Dim::fixed(len / 2 + 1), Dim::fixed(bins)}}};
}

double mel_flops(const Node& n) {
  return 40.0 * approx_elements(n.outputs.at(0)->type);
}

OpInfo window_op(OpKind k, const char* name) {
  OpInfo w{k,
           name,
           PatternKind::kInjective,
           {{"size", AttrType::kInt}, {"periodic", AttrType::kInt}, {"dtype", AttrType::kInt}}};
  w.min_inputs = 0;
  w.max_inputs = 1;  // the size, until type inference moves it into the attribute
  w.const_inputs = {{0, "size", "size", false, /*runtime=*/true}};
  w.infer_fn = infer_window;
  w.flops_fn = window_flops;
  return w;
}

}  // namespace

void add_signal_ops(std::vector<OpInfo>& t) {
  t.push_back(window_op(OpKind::HannWindow, "HannWindow"));
  t.push_back(window_op(OpKind::HammingWindow, "HammingWindow"));
  t.push_back(window_op(OpKind::BlackmanWindow, "BlackmanWindow"));

  OpInfo dft{OpKind::DFT,
             "DFT",
             PatternKind::kOpaque,
             {{"axis", AttrType::kInt},
              {"inverse", AttrType::kInt},
              {"onesided", AttrType::kInt},
              {"dft_length", AttrType::kInt}}};
  dft.min_inputs = 1;
  dft.max_inputs = 3;  // input, dft_length?, axis? (until inferred)
  dft.const_inputs = {{1, "dft_length", "dft_length"},
                      {2, "axis", "axis", false, /*runtime=*/true}};
  dft.infer_fn = infer_dft;
  dft.flops_fn = dft_flops;
  t.push_back(dft);

  OpInfo stft{OpKind::STFT,
              "STFT",
              PatternKind::kOpaque,
              {{"frame_step", AttrType::kInt},
               {"frame_length", AttrType::kInt},
               {"onesided", AttrType::kInt}}};
  stft.min_inputs = 1;
  stft.max_inputs = 4;  // signal, frame_step (until inferred), window?, frame_length?
  stft.const_inputs = {{1, "frame_step", "frame_step", false, /*runtime=*/true},
                       {3, "frame_length", "frame_length", false, /*runtime=*/true}};
  stft.infer_fn = infer_stft;
  stft.flops_fn = stft_flops;
  t.push_back(stft);

  OpInfo mel{OpKind::MelWeightMatrix,
             "MelWeightMatrix",
             PatternKind::kOpaque,
             {{"num_mel_bins", AttrType::kInt},
              {"dft_length", AttrType::kInt},
              {"dtype", AttrType::kInt}}};
  mel.min_inputs = mel.max_inputs = 5;  // num_mel_bins, dft_length (nullptr once resolved),
                                        // sample_rate, lower_edge_hertz, upper_edge_hertz
  mel.const_inputs = {{0, "num_mel_bins", "num_mel_bins", false, /*runtime=*/true},
                      {1, "dft_length", "dft_length", false, /*runtime=*/true}};
  mel.infer_fn = infer_mel;
  mel.flops_fn = mel_flops;
  t.push_back(mel);
}

}  // namespace ingot::ops::detail
