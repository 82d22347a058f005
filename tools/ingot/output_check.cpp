// Comparing outputs with a reference .npz (see output_check.h).
#include "tools/ingot/output_check.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "support/error.h"
#include "support/npz.h"
#include "tools/ingot/run_session.h"

namespace ingot::cli {
namespace {

std::string index_string(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] > 0 ? flat % shape[d] : 0;
    flat = shape[d] > 0 ? flat / shape[d] : 0;
  }
  return fmt::format("[{}]", fmt::join(idx, ", "));
}

// Compares one output; prints its line; returns whether it matches.
bool check_one(const IngotTensorInfo& info, const DLTensor& view, const NpyArray& want,
               CheckTolerance tol) {
  std::vector<int64_t> shape(view.shape, view.shape + view.ndim);  // this run's shape
  if (shape != want.shape) {
    fmt::print("check: output '{}' MISMATCH: shape {} but the reference has {}\n", info.name,
               shape_string(view.shape, view.ndim),
               shape_string(want.shape.data(), static_cast<int>(want.shape.size())));
    return false;
  }
  auto want_type = npy_element_type(want.dtype);
  bool exact = info.dtype.code != 2 && info.dtype.code != 4;  // not float / bfloat
  int64_t n = want.num_elements(), differing = 0, worst = -1;
  double worst_excess = -1, max_diff = 0;
  for (int64_t k = 0; k < n; ++k) {
    auto got =
        npy_element({info.dtype.code, info.dtype.bits}, static_cast<const uint8_t*>(view.data), k);
    auto ref = npy_element(*want_type, want.data.data(), k);
    if (!got || !ref) {
      fmt::print("check: output '{}' MISMATCH: cannot compare dtype {} with {}\n", info.name,
                 dtype_string(info.dtype), npy_dtype_name(want.dtype));
      return false;
    }
    bool both_nan = std::isnan(*got) && std::isnan(*ref);
    double diff = both_nan ? 0.0 : std::fabs(*got - *ref);
    if (std::isnan(diff)) diff = std::numeric_limits<double>::infinity();
    double allowed = exact ? 0.0 : tol.atol + tol.rtol * std::fabs(*ref);
    max_diff = std::max(max_diff, diff);
    if (diff > allowed) {
      ++differing;
      if (diff - allowed > worst_excess) {
        worst_excess = diff - allowed;
        worst = k;
      }
    }
  }
  if (differing == 0) {
    fmt::print("check: output '{}' OK: {} elements, max |diff| {:.3g}\n", info.name, n, max_diff);
    return true;
  }
  double got = *npy_element({info.dtype.code, info.dtype.bits},
                            static_cast<const uint8_t*>(view.data), worst);
  double ref = *npy_element(*want_type, want.data.data(), worst);
  fmt::print(
      "check: output '{}' MISMATCH: {} of {} elements differ; worst at index {}: got {:.9g}, "
      "expected {:.9g} (|diff| {:.3g}, allowed {:.3g})\n",
      info.name, differing, n, index_string(worst, shape), got, ref, std::fabs(got - ref),
      exact ? 0.0 : tol.atol + tol.rtol * std::fabs(ref));
  return false;
}

}  // namespace

int check_outputs(const std::string& ref_path, CheckTolerance tol, const rt::Session& session,
                  const rt::Model& model) {
  std::vector<NpyArray> refs = read_npz(ref_path);
  for (const NpyArray& r : refs) {
    if (model.find_output(r.name) < 0) {
      fail_user("--check: '{}' has an array '{}', which is no output of the model", ref_path,
                r.name);
    }
    if (!npy_element_type(r.dtype))
      fail_user("--check: array '{}' of '{}' has unsupported dtype {}", r.name, ref_path, r.dtype);
  }
  int mismatches = 0, checked = 0;
  for (int i = 0; i < model.num_outputs(); ++i) {
    const IngotTensorInfo& info = model.output_info(i);
    const NpyArray* want = nullptr;
    for (const NpyArray& r : refs)
      if (r.name == info.name) want = &r;
    if (want == nullptr) {
      fmt::print("check: output '{}' not checked: '{}' has no array of that name\n", info.name,
                 ref_path);
      continue;
    }
    ++checked;
    if (!check_one(info, session.output(i), *want, tol)) ++mismatches;
  }
  fmt::print("check: {} of {} outputs match '{}' (rtol {:g}, atol {:g})\n", checked - mismatches,
             checked, ref_path, tol.rtol, tol.atol);
  return mismatches;
}

}  // namespace ingot::cli
