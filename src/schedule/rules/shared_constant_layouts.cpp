// One copy of a constant several kernels read (see shared_constant_layouts.h).
#include "schedule/rules/shared_constant_layouts.h"

#include <map>

#include "schedule/error.h"
#include "schedule/ir_utils.h"
#include "schedule/rules/injective.h"
#include "tir/op.h"
#include "tir/visitor.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// The first block that reads `buffer`, and the index of that read.
struct Reader : IRVisitor {
  const BufferNode* buffer;
  std::string block;
  int read = -1;
  explicit Reader(const BufferNode* b) : buffer(b) {}
  void visit_Block(const Block* op, const Stmt& s) override {
    for (size_t r = 0; r < op->reads.size() && read < 0; ++r)
      if (op->reads[r].buffer.get() == buffer) {
        block = op->name_hint;
        read = int(r);
      }
    if (read < 0) IRVisitor::visit_Block(op, s);
  }
};

bool has_shape(const Buffer& b, const std::vector<int64_t>& shape) {
  if (b->shape.size() != shape.size()) return false;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t n = -1;
    if (!is_const_int(b->shape[d], &n) || n != shape[d]) return false;
  }
  return true;
}

struct Use {
  size_t kernel;
  int param;
};

}  // namespace

void share_constant_layouts(IRModule& mod, const std::vector<PrimFunc>& unscheduled,
                            const std::vector<bool>& by_default, const RuleTarget& target) {
  // 1. Who reads each constant (by its offset), and how often each kernel is called.
  std::map<int64_t, std::vector<Use>> uses;
  std::map<size_t, int> calls;
  for (const KernelCall& c : mod.entry) {
    if (!c.is_call()) continue;
    const size_t k = size_t(c.kernel);
    ++calls[k];
    for (size_t p = 0; p < c.args.size(); ++p)
      if (c.args[p].kind == ArgRef::kConstant) uses[c.args[p].value].push_back({k, int(p)});
  }
  const ScheduleRule* injective = find_schedule_rule(kInjectiveRule, target.kind);
  if (injective == nullptr) return;
  // 2. Per plain reader, the layouts to take: a kernel may read several laid-out constants
  //    (a quantized table's integers and scales), all taken in one schedule.
  struct Taken {
    int read;
    std::string block;
    PrimFunc::ParamLayout layout;
  };
  std::map<size_t, std::vector<Taken>> take;
  for (const auto& [offset, readers] : uses) {
    const PrimFunc::ParamLayout* layout = nullptr;
    for (const Use& u : readers)
      for (const PrimFunc::ParamLayout& l : mod.kernels[u.kernel].layouts)
        if (l.param == u.param && layout == nullptr) layout = &l;
    if (layout == nullptr) continue;
    // Every plain reader scheduled by the injective rule and called once. (Any other plain
    // reader keeps the original in the module anyway.)
    std::vector<Use> plain;
    bool all = true;
    for (const Use& u : readers) {
      const PrimFunc& f = mod.kernels[u.kernel];
      bool laid_out = false;
      for (const PrimFunc::ParamLayout& l : f.layouts) laid_out = laid_out || l.param == u.param;
      if (laid_out) continue;
      all =
          all && by_default[u.kernel] && f.schedule_rule == kInjectiveRule && calls[u.kernel] == 1;
      plain.push_back(u);
    }
    if (!all) continue;
    for (const Use& u : plain) {
      const Buffer& param = unscheduled[u.kernel].params.at(size_t(u.param));
      if (!has_shape(param, layout->shape)) continue;  // read through another view
      Reader reader(param.get());
      reader.visit(unscheduled[u.kernel].body);
      if (reader.read >= 0) take[u.kernel].push_back({reader.read, reader.block, *layout});
    }
  }
  // 3. Each such reader scheduled again with its layouts first: all of them, else as many as its
  //    accesses take (in order).
  for (const auto& [kernel, layouts] : take) {
    const PrimFunc& original = unscheduled[kernel];
    auto schedule_with = [&](const std::vector<Taken>& chosen) {
      Schedule s(original);
      for (const Taken& t : chosen)
        s.transform_layout(s.get_block(t.block), t.read, t.layout.layout.splits,
                           t.layout.layout.perm);
      injective->apply(s, target);
      mod.kernels[kernel] = scheduled_kernel(original, s);
    };
    try {
      schedule_with(layouts);
      continue;
    } catch (const ScheduleError&) {
    }
    std::vector<Taken> chosen;
    for (const Taken& t : layouts) {
      chosen.push_back(t);
      try {
        schedule_with(chosen);
      } catch (const ScheduleError&) {
        chosen.pop_back();  // its accesses refuse this layout: the original stays for it
      }
    }
  }
}

}  // namespace ingot::schedule
