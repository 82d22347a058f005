// The weight layouts of the CPU convolution rules (conv2d.h, depthwise_conv_nchwc.h): lowering
// describes a convolution over the node's own weights, W[OC, IC / groups, k...] read at
// [ob * NR + r, (cb * IB +) ci, k...] (lower/compute/blocked_conv.h); the rule gives the constant
// the layout its micro-kernel streams, by transform_layout (re-laid out once at compile time):
// every dim read as `outer * f + inner` split by f (zero padded, so the compute's guards past
// OC and IC go), then the dims ordered as the block iterates them with the output channel in
// the block (r) innermost: [ob, cb, k..., ci, r], the NCHWc packing of TVM and oneDNN. A bias
// read past OC is padded to whole blocks too.
#pragma once

#include <string>

#include "schedule/schedule.h"

namespace ingot::schedule {

// Lays out the constant weights (and bias) block `block` reads, when they are still in the
// node's layout (a weight whose rank is the output's less one); otherwise leaves them.
void lay_out_conv_weights(Schedule& s, const std::string& block);

// The same for an 8-bit or bfloat16 blocked conv whose input lanes the rule splits by `group`
// next (the reduction's last iter var then the group's): W[OC, IC, k...] as [OC/NR, IC/G, k...,
// NR, G], the G input channels of one output channel adjacent (the dot micro-kernel's panel),
// zero padded.
void lay_out_dot_conv_weights(Schedule& s, const std::string& block, int group);

// The input load X of an 8-bit conv block, acc = acc + int32(X[..]) * <the weights>, X uint8 /
// int8, acc int32 (the weights' read may still be guarded); nullptr for any other block.
const tir::BufferLoad* int8_conv_input(const tir::Block* b);

// The input load X of a conv block of bfloat16 products, acc = acc + float32(X[..]) * <the
// weights>, X bfloat16, acc float32; nullptr for any other block.
const tir::BufferLoad* bf16_conv_input(const tir::Block* b);

// Whether block `b` of `f` sums into a scratch parameter (lowering's `acc`: an 8-bit conv's
// int32 sums, a bfloat16 output's float32 ones), which the conv rules make local memory.
bool sums_in_scratch(const tir::PrimFunc& f, const tir::Block* b);

// Whether `f` has a block "conv" computing a blocked direct convolution (the form of
// lower/compute/blocked_conv.h: a spatial output [n, ob, o..., r] reduced over the input and
// window, a float32 multiply-accumulate (of float32 or widened bfloat16 operands), or an 8-bit
// one into int32), whose weights are a constant parameter.
bool is_blocked_conv(const tir::PrimFunc& f);

}  // namespace ingot::schedule
