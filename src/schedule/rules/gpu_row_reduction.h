// The GPU row rule: a row block (the injective rule's rows: a softmax, normalisation or
// reduction row, see injective.h) computed by one thread block per row, in the spirit of TVM
// dlight's general reduction, instead of one thread per row. The rows are fused onto
// blockIdx.x; inside a row, each reduction (Accumulator::reduce: acc = combine(acc, value) over
// the row, its loops fused) is split into T partial results, one per thread (rfactor of a loop
// of T bound to threadIdx.x, each thread striding over the row by T so that neighbouring
// threads read neighbouring elements), then combined across the threads (the write-back loop
// bound to threadIdx.x: codegen/gpu/thread_reduction.h); each pass over the row (a lane loop:
// softmax's scaling, a normalisation's write) is split the same way. The row's scalar steps
// (the accumulators' init and finish) run on every thread, on its own copy.
// A row qualifies when it is one of several (a single row, a whole-tensor reduction, stays on
// one thread: its statements would be separate launches), every statement in it is one of those
// three (a reduction into a local accumulator, a lane loop under serial loops, or a store outside
// loops that does not read what it writes) and it has a reduction; where a reduction also writes a
// global buffer that a later pass reads (softmax's exponentials), every split pass covers the same
// extent, so that each thread reads back only what it wrote. T is a sampling instruction: 0 (one
// thread per row: the fallback rule binds it) or a power of two from 32 to `max_threads`; the
// default is the largest up to 256 that leaves each thread at least two elements of the longest
// pass (32 at least; 0 when that pass is shorter than 32).
#pragma once

#include "schedule/schedule.h"

namespace ingot::schedule {

void schedule_gpu_rows(Schedule& s, int max_threads);

}  // namespace ingot::schedule
