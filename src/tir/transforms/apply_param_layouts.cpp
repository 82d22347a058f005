// Binding the schedules' layouts and scratch buffers into the module (see apply_param_layouts.h).
#include "tir/transforms/apply_param_layouts.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "support/error.h"
#include "tir/op.h"

namespace ingot::tir {

namespace {

constexpr int64_t kAlign = 64;

int64_t align_up(int64_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

int64_t param_bytes(const PrimFunc& f, size_t p) {
  int64_t n = f.params[p]->dtype.bytes();
  for (const Expr& d : f.params[p]->shape) {
    int64_t v = 0;
    INGOT_ICHECK(is_const_int(d, &v), "kernel {}: parameter {} of a symbolic shape in a layout",
                 f.name, f.params[p]->name);
    n *= v;
  }
  return n;
}

std::string layout_key(int64_t offset, const PrimFunc::ParamLayout& l) {
  std::string k = std::to_string(offset) + ":";
  for (int64_t v : l.shape) k += std::to_string(v) + ",";
  k += "|";
  for (int64_t v : l.layout.splits) k += std::to_string(v) + ",";
  k += "|";
  for (int64_t v : l.layout.perm) k += std::to_string(v) + ",";
  return k;
}

// A constant in a new layout: made once per (constant, layout), from the old blob.
struct Relaid {
  int64_t from = 0;  // offset in the old blob
  const PrimFunc::ParamLayout* layout = nullptr;
  int64_t elem = 0, bytes = 0;  // element size, size in the new layout
};

// The new blob: the ranges of the old one that arguments without a layout still read (ranges
// that overlap, a view into a constant, kept as one run), then each relaid constant, written
// straight into its place. Every constant argument is moved to its new offset.
void rebuild_constants(IRModule& mod, const std::vector<Relaid>& relaid,
                       const std::map<std::pair<size_t, size_t>, size_t>& relaid_arg) {
  std::map<int64_t, int64_t> used;  // offset -> bytes (the largest read)
  for (size_t c = 0; c < mod.entry.size(); ++c) {
    const KernelCall& call = mod.entry[c];
    if (!call.is_call()) continue;
    const PrimFunc& f = mod.kernels[size_t(call.kernel)];
    for (size_t p = 0; p < call.args.size() && p < f.params.size(); ++p)
      if (call.args[p].kind == ArgRef::kConstant && !relaid_arg.count({c, p})) {
        int64_t& n = used[call.args[p].value];
        n = std::max(n, param_bytes(f, p));
      }
  }
  std::vector<std::pair<int64_t, int64_t>> runs;  // [start, end)
  for (auto [off, n] : used) {
    if (!runs.empty() && off < runs.back().second) {
      runs.back().second = std::max(runs.back().second, off + n);
    } else {
      runs.push_back({off, off + n});
    }
  }
  int64_t total = 0;
  for (auto [start, end] : runs) total = align_up(total) + (end - start);
  for (const Relaid& r : relaid) total = align_up(total) + r.bytes;
  std::vector<uint8_t> blob;
  blob.reserve(size_t(total));
  std::map<int64_t, int64_t> run_at;  // run start -> its new offset
  for (auto [start, end] : runs) {
    int64_t at = align_up(int64_t(blob.size()));
    blob.resize(size_t(at));
    blob.insert(blob.end(), mod.constants.begin() + start, mod.constants.begin() + end);
    run_at[start] = at;
  }
  std::vector<int64_t> relaid_at;
  for (const Relaid& r : relaid) {
    int64_t at = align_up(int64_t(blob.size()));
    blob.resize(size_t(at + r.bytes), 0);  // the padding stays zero
    r.layout->layout.relayout_into(mod.constants.data() + r.from, r.layout->shape, r.elem,
                                   blob.data() + at);
    relaid_at.push_back(at);
  }
  for (size_t c = 0; c < mod.entry.size(); ++c) {
    KernelCall& call = mod.entry[c];
    if (!call.is_call()) continue;
    for (size_t p = 0; p < call.args.size(); ++p) {
      ArgRef& a = call.args[p];
      if (a.kind != ArgRef::kConstant) continue;
      if (auto it = relaid_arg.find({c, p}); it != relaid_arg.end()) {
        a.value = relaid_at[it->second];
        continue;
      }
      auto run = std::prev(run_at.upper_bound(a.value));
      a.value = run->second + (a.value - run->first);
    }
  }
  mod.constants = std::move(blob);
}

}  // namespace

void apply_param_layouts(IRModule& mod) {
  bool any_layout = false;
  std::map<int, std::vector<std::pair<int, int64_t>>> scratch;  // kernel -> (param, offset)
  int64_t scratch_bytes = 0;
  for (size_t k = 0; k < mod.kernels.size(); ++k) {
    const PrimFunc& f = mod.kernels[k];
    any_layout = any_layout || !f.layouts.empty();
    int64_t at = 0;
    for (int p : f.scratch_params) {
      scratch[int(k)].push_back({p, at});
      at = align_up(at + param_bytes(f, size_t(p)));
    }
    scratch_bytes = std::max(scratch_bytes, at);
  }
  if (!any_layout && scratch.empty()) return;
  // 1. Constants in their new layouts: one per (constant, layout), the blob rebuilt around them.
  if (any_layout) {
    std::vector<Relaid> relaid;
    std::map<std::string, size_t> by_key;
    std::map<std::pair<size_t, size_t>, size_t> relaid_arg;  // (call, param) -> relaid
    for (size_t c = 0; c < mod.entry.size(); ++c) {
      const KernelCall& call = mod.entry[c];
      if (!call.is_call()) continue;
      const PrimFunc& f = mod.kernels[size_t(call.kernel)];
      for (const PrimFunc::ParamLayout& l : f.layouts) {
        const ArgRef& a = call.args.at(size_t(l.param));
        INGOT_ICHECK(a.kind == ArgRef::kConstant,
                     "kernel {}: parameter {} has a layout but is not bound to a constant", f.name,
                     f.params[size_t(l.param)]->name);
        auto [it, fresh] = by_key.emplace(layout_key(a.value, l), relaid.size());
        if (fresh)
          relaid.push_back({a.value, &l, f.params[size_t(l.param)]->dtype.bytes(),
                            param_bytes(f, size_t(l.param))});
        relaid_arg[{c, size_t(l.param)}] = it->second;
      }
    }
    rebuild_constants(mod, relaid, relaid_arg);
  }
  // 2. Scratch past the arena.
  if (!scratch.empty()) {
    const bool symbolic = mod.workspace_size.defined();
    const int64_t base = align_up(int64_t(mod.workspace_bytes));
    int slot = 0;
    for (const IRModule::WorkspaceOffset& w : mod.workspace_offsets)
      slot = std::max(slot, w.slot + 1);
    Expr sym_base;
    if (symbolic)
      sym_base = floordiv(mod.workspace_size + i64(kAlign - 1), i64(kAlign)) * i64(kAlign);
    std::map<int64_t, int64_t> sym_index;  // scratch offset -> workspace_offsets entry
    for (KernelCall& c : mod.entry) {
      if (!c.is_call()) continue;
      auto it = scratch.find(c.kernel);
      if (it == scratch.end()) continue;
      for (auto [p, off] : it->second) {
        INGOT_ICHECK(c.args.size() == size_t(p), "kernel {}: scratch parameter {} out of order",
                     mod.kernels[size_t(c.kernel)].name, p);
        if (!symbolic) {
          c.args.push_back({ArgRef::kWorkspace, base + off});
          continue;
        }
        auto [e, fresh] = sym_index.emplace(off, int64_t(mod.workspace_offsets.size()));
        if (fresh) mod.workspace_offsets.push_back({sym_base + i64(off), slot++});
        c.args.push_back({ArgRef::kWorkspaceAt, e->second});
      }
    }
    if (symbolic) mod.workspace_size = sym_base + i64(scratch_bytes);
    mod.workspace_bytes = uint64_t(base + scratch_bytes);
    mod.workspace_bytes_unshared += uint64_t(scratch_bytes);
  }
  for (PrimFunc& f : mod.kernels) {
    f.layouts.clear();
    f.scratch_params.clear();
  }
}

}  // namespace ingot::tir
