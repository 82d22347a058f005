// The GPU fallback rule: the schedule of every block-form nest of the compute rules on GPU
// targets (registered as the injective rule for the cuda and opencl kinds), as TVM dlight's
// fallback. Fusion's intermediates are inlined into their readers first (nest_utils.h); then each
// top-level block whose own loops are all spatial and all the loops around it gets them fused
// into one loop, split into
// blocks of `max_threads` threads (the last block masked), bound to blockIdx.x and threadIdx.x:
// one thread per element of an elementwise nest, one per output row of a row (softmax,
// normalisation, reduction rows and the naive matmul and conv rows keep their inner loops serial
// in the thread); a reduction over [spatial..., reduce...] (compute/reduce.cpp's kept innermost
// dim) gets its spatial loops bound the same way, its reduction serial in each thread. Blocks
// with other loops stay serial and become single-thread launches. The
// threads per block are a sampling instruction (32 to max_threads, default: the largest that
// still gives each of `kMinBlocks` blocks a full complement, else max_threads), so the tuner can
// search them.
#pragma once

#include "schedule/schedule.h"

namespace ingot::schedule {

void schedule_gpu_injective(Schedule& s, int max_threads);

// The default schedule of a GPU kernel, rule by rule as dlight applies them: intermediates
// inlined, the product tiled (gpu_matmul.h) when there is one, then the fallback above for the
// nests left. `tensor_cores`: see schedule_gpu_matmul.
void schedule_gpu_kernel(Schedule& s, int max_threads, bool tensor_cores = false);

}  // namespace ingot::schedule
