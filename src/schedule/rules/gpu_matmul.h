// The GPU matmul rule: the product block "matmul" of the GPU targets' MatMul / Gemm
// (lower/compute/matmul_block.cpp: [batch loops], i, j, reduce k), or "conv" of a 2-D Conv
// (conv_block.cpp: [n, oh], output channels i, output columns j, reduce k over the window) tiled as
// a SIMT matmul in the spirit of TVM dlight's: each thread block computes a BM x BN tile of the
// output (BM = ty * vi, BN = tx * vj) over slabs of BK along k; each thread accumulates its vi x vj
// tile in registers (cache_write "local", the init before the k-slab loop) and writes it back (with
// the fused epilogue) at the end; each slab of A and B is staged in shared memory by all threads
// of the block (cache_read "shared" at the k-slab loop, the copy bound cooperatively over the
// threads; the GPU lowering places the barriers). The batch loops, row tiles and column tiles
// are one loop bound to blockIdx.x. Every size is a sampling instruction (the tuner searches
// them); tx x ty respects `max_threads`; the default per-thread tile shrinks while the grid has
// fewer than 64 blocks, and a one-row product (a GEMV) puts all its threads along the columns and
// stages only the row; or, by default from k = 128, splits k across ks rows of threads (2-16,
// sampled; 8 by default) under 32 columns per block: each thread a partial sum over every
// ks-th step (rfactor), combined across the rows (a reduction across threads, the write-back
// loop bound to threadIdx.y), the write-back and the in-place epilogue on the first row of
// threads only (a loop of one bound to threadIdx.y), which gives a 768 x 300 GEMV 10 blocks of
// 256 threads instead of 2. An operand read where its unclamped index can leave it (a conv's
// padding) is read from global memory, not staged: the box its tile reads may leave the tensor.
// Returns false (nothing changed) when the kernel has no such block. A conv's k slabs hold whole
// windows (k's steps come in groups of the window, read from the floordiv(k, window) in its block),
// so that each slab reads whole input channels.
#pragma once

#include "schedule/schedule.h"

namespace ingot::schedule {

// `tensor_cores` (CUDA from sm_80): a float16 product of a depth that is a multiple of 16 and at
// least 16 x 8 (a MatMul, or an unpadded 1x1 conv: output channels x output columns) runs on the
// m16n8k16 tensor-core instruction, its last row and column tiles masked (docs/architecture.md,
// "tensor cores").
bool schedule_gpu_matmul(Schedule& s, int max_threads, bool tensor_cores = false);

}  // namespace ingot::schedule
