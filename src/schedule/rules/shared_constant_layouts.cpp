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
  for (const auto& [offset, readers] : uses) {
    // 2. A layout some kernel gave it.
    const PrimFunc::ParamLayout* layout = nullptr;
    for (const Use& u : readers)
      for (const PrimFunc::ParamLayout& l : mod.kernels[u.kernel].layouts)
        if (l.param == u.param && layout == nullptr) layout = &l;
    if (layout == nullptr) continue;
    const PrimFunc::ParamLayout shared = *layout;
    // 3. Every plain reader scheduled by the injective rule, called once: scheduled again with
    //    the layout first. (Any other plain reader keeps the original in the module anyway.)
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
    if (!all || plain.empty()) continue;
    for (const Use& u : plain) {
      const PrimFunc& original = unscheduled[u.kernel];
      const Buffer& param = original.params.at(size_t(u.param));
      if (!has_shape(param, shared.shape)) continue;  // read through another view
      Reader reader(param.get());
      reader.visit(original.body);
      if (reader.read < 0) continue;
      try {
        Schedule s(original);
        s.transform_layout(s.get_block(reader.block), reader.read, shared.layout.splits,
                           shared.layout.perm);
        injective->apply(s, target);
        mod.kernels[u.kernel] = scheduled_kernel(original, s);
      } catch (const ScheduleError&) {
        // The reader's accesses refuse the layout: it keeps its own schedule (and the original).
      }
    }
  }
}

}  // namespace ingot::schedule
