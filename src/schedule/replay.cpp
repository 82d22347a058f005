// Trace replay: applies each recorded instruction to a fresh Schedule, mapping the trace's
// random-variable names to the new schedule's handles.
#include <map>

#include "schedule/schedule.h"

namespace ingot::schedule {

using nlohmann::json;

namespace {

class ReplayError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

class Replayer {
 public:
  explicit Replayer(Schedule& s) : s_(s) {}

  void apply(const Instruction& i) {
    const std::string& k = i.kind;
    if (k == "get_block") {
      out(i, {s_.get_block(attr<std::string>(i, "name")).id});
    } else if (k == "get_loops") {
      outs(i, s_.get_loops(block(i, 0)));
    } else if (k == "get_child_blocks") {
      std::string ref = ref_at(i, 0);
      outs(i, ref[0] == 'b' ? s_.get_child_blocks(block(i, 0)) : s_.get_child_blocks(loop(i, 0)));
    } else if (k == "split") {
      std::vector<Factor> factors;
      for (const json& f : input(i, 1)) {
        if (f.is_null()) {
          factors.emplace_back(std::nullopt);
        } else if (f.is_string()) {
          factors.emplace_back(ExprRV{lookup(f.get<std::string>())});
        } else {
          factors.emplace_back(f.get<int64_t>());
        }
      }
      outs(i, s_.split(loop(i, 0), factors));
    } else if (k == "fuse") {
      out(i, {s_.fuse(loops(i, 0)).id});
    } else if (k == "reorder") {
      s_.reorder(loops(i, 0));
    } else if (k == "partition") {
      outs(i, s_.partition(loop(i, 0), input(i, 1).get<std::vector<int64_t>>(),
                           attr<bool>(i, "branch")));
    } else if (k == "parallel") {
      s_.parallel(loop(i, 0));
    } else if (k == "vectorize") {
      s_.vectorize(loop(i, 0));
    } else if (k == "unroll") {
      s_.unroll(loop(i, 0));
    } else if (k == "outline") {
      s_.outline(loop(i, 0));
    } else if (k == "bind") {
      s_.bind(loop(i, 0), attr<std::string>(i, "thread"));
    } else if (k == "annotate") {
      s_.annotate(block(i, 0), attr<std::string>(i, "key"), attr<std::string>(i, "value"));
    } else if (k == "sample_perfect_tile") {
      outs(i, s_.sample_perfect_tile(loop(i, 0), attr<int>(i, "n"),
                                     attr<int>(i, "max_innermost_factor"),
                                     i.decision.get<std::vector<int64_t>>()));
    } else if (k == "sample_categorical") {
      out(i,
          {s_.sample_categorical(attr<std::vector<int64_t>>(i, "candidates"),
                                 attr<std::vector<double>>(i, "probs"), i.decision.get<int64_t>())
               .id});
    } else if (k == "decompose_reduction") {
      out(i, {s_.decompose_reduction(block(i, 0), loop(i, 1)).id});
    } else if (k == "cache_read") {
      out(i,
          {s_.cache_read(block(i, 0), attr<int>(i, "buffer_index"), attr<std::string>(i, "scope"))
               .id});
    } else if (k == "cache_write") {
      out(i,
          {s_.cache_write(block(i, 0), attr<int>(i, "buffer_index"), attr<std::string>(i, "scope"))
               .id});
    } else if (k == "compute_inline") {
      s_.compute_inline(block(i, 0));
    } else if (k == "reverse_compute_inline") {
      s_.reverse_compute_inline(block(i, 0));
    } else if (k == "compute_at") {
      s_.compute_at(block(i, 0), loop(i, 1));
    } else if (k == "reverse_compute_at") {
      s_.reverse_compute_at(block(i, 0), loop(i, 1));
    } else if (k == "storage_align") {
      s_.storage_align(block(i, 0), attr<int>(i, "buffer_index"), attr<int>(i, "axis"),
                       attr<int>(i, "factor"), attr<int>(i, "offset"));
    } else if (k == "blockize") {
      out(i, {s_.blockize(loop(i, 0)).id});
    } else if (k == "tensorize") {
      PartialTile partial = PartialTile::kLoops;
      if (i.attrs.contains("partial")) {
        std::string p = attr<std::string>(i, "partial");
        if (p != "loops" && p != "scratch" && p != "tail")
          fail_schedule<ReplayError>(
              "trace instruction tensorize: unknown partial tile mode \"{}\"", p);
        if (p == "scratch") partial = PartialTile::kScratch;
        if (p == "tail") partial = PartialTile::kTail;
      }
      if (partial == PartialTile::kTail)
        s_.tensorize(block(i, 0), attr<std::string>(i, "intrin"),
                     attr<std::string>(i, "tail_intrin"));
      else
        s_.tensorize(block(i, 0), attr<std::string>(i, "intrin"), partial);
    } else {
      fail_schedule<ReplayError>("trace instruction \"{}\" is not a schedule primitive", k);
    }
  }

 private:
  const json& input(const Instruction& i, size_t n) {
    if (n >= i.inputs.size())
      fail_schedule<ReplayError>("trace instruction {} lacks input {}", i.kind, n);
    return i.inputs[n];
  }
  std::string ref_at(const Instruction& i, size_t n) {
    const json& v = input(i, n);
    if (!v.is_string())
      fail_schedule<ReplayError>("trace instruction {}: input {} is not a handle", i.kind, n);
    return v.get<std::string>();
  }
  int lookup(const std::string& name) {
    auto it = names_.find(name);
    if (it == names_.end())
      fail_schedule<ReplayError>("trace uses handle {} before defining it", name);
    return it->second;
  }
  BlockRV block(const Instruction& i, size_t n) { return BlockRV{lookup(ref_at(i, n))}; }
  LoopRV loop(const Instruction& i, size_t n) { return LoopRV{lookup(ref_at(i, n))}; }
  std::vector<LoopRV> loops(const Instruction& i, size_t n) {
    std::vector<LoopRV> v;
    for (const json& x : input(i, n)) v.push_back(LoopRV{lookup(x.get<std::string>())});
    return v;
  }
  template <typename T>
  T attr(const Instruction& i, const char* key) {
    if (!i.attrs.contains(key))
      fail_schedule<ReplayError>("trace instruction {} lacks attribute {}", i.kind, key);
    return i.attrs.at(key).get<T>();
  }
  void out(const Instruction& i, const std::vector<int>& ids) {
    if (ids.size() != i.outputs.size())
      fail_schedule<ReplayError>("trace instruction {} names {} outputs, replay made {}", i.kind,
                                 i.outputs.size(), ids.size());
    for (size_t k = 0; k < ids.size(); ++k) names_[i.outputs[k]] = ids[k];
  }
  template <typename RV>
  void outs(const Instruction& i, const std::vector<RV>& rvs) {
    std::vector<int> ids;
    for (const RV& r : rvs) ids.push_back(r.id);
    out(i, ids);
  }

  Schedule& s_;
  std::map<std::string, int> names_;
};

}  // namespace

Schedule Trace::replay(const tir::PrimFunc& f) const {
  Schedule s(f);
  Replayer r(s);
  try {
    for (const Instruction& i : instructions) r.apply(i);
  } catch (const nlohmann::json::exception& e) {
    fail_schedule<ReplayError>("malformed trace: {}", e.what());
  }
  return s;
}

}  // namespace ingot::schedule
