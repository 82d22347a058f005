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

// Rebuilds the constant blob from the ranges the calls still read (each kept once, in order).
void compact_constants(IRModule& mod) {
  std::map<int64_t, int64_t> used;  // offset -> bytes (the largest read)
  for (const KernelCall& c : mod.entry) {
    if (!c.is_call()) continue;
    const PrimFunc& f = mod.kernels[size_t(c.kernel)];
    for (size_t p = 0; p < c.args.size() && p < f.params.size(); ++p)
      if (c.args[p].kind == ArgRef::kConstant) {
        int64_t& n = used[c.args[p].value];
        n = std::max(n, param_bytes(f, p));
      }
  }
  // Overlapping ranges (a view into a constant) form one run, kept whole.
  std::vector<std::pair<int64_t, int64_t>> runs;  // [start, end)
  for (auto [off, n] : used) {
    if (!runs.empty() && off < runs.back().second) {
      runs.back().second = std::max(runs.back().second, off + n);
    } else {
      runs.push_back({off, off + n});
    }
  }
  std::vector<uint8_t> blob;
  std::map<int64_t, int64_t> run_at;  // run start -> its new offset
  for (auto [start, end] : runs) {
    int64_t at = align_up(int64_t(blob.size()));
    blob.resize(size_t(at));
    blob.insert(blob.end(), mod.constants.begin() + start, mod.constants.begin() + end);
    run_at[start] = at;
  }
  std::map<int64_t, int64_t> moved;
  for (auto [off, n] : used) {
    auto run = std::prev(run_at.upper_bound(off));
    moved[off] = run->second + (off - run->first);
  }
  for (KernelCall& c : mod.entry)
    for (ArgRef& a : c.args)
      if (c.is_call() && a.kind == ArgRef::kConstant) a.value = moved.at(a.value);
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
  // 1. Constants in their new layouts.
  std::map<std::string, int64_t> relaid;
  for (KernelCall& c : mod.entry) {
    if (!c.is_call()) continue;
    const PrimFunc& f = mod.kernels[size_t(c.kernel)];
    for (const PrimFunc::ParamLayout& l : f.layouts) {
      ArgRef& a = c.args.at(size_t(l.param));
      INGOT_ICHECK(a.kind == ArgRef::kConstant,
                   "kernel {}: parameter {} has a layout but is not bound to a constant", f.name,
                   f.params[size_t(l.param)]->name);
      auto [it, fresh] = relaid.emplace(layout_key(a.value, l), 0);
      if (fresh) {
        int64_t elem = f.params[size_t(l.param)]->dtype.bytes();
        std::vector<uint8_t> data =
            l.layout.relayout(mod.constants.data() + a.value, l.shape, elem);
        int64_t off = align_up(int64_t(mod.constants.size()));
        mod.constants.resize(size_t(off));
        mod.constants.insert(mod.constants.end(), data.begin(), data.end());
        it->second = off;
      }
      a.value = it->second;
    }
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
  if (any_layout) compact_constants(mod);
}

}  // namespace ingot::tir
