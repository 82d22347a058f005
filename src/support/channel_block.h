// The channel block of CPU convolutions: how many channels sit together in the innermost
// dimension of a channel-blocked (NCHWc) tensor, and the output-channel width of the blocked
// convolution's register tile. Shared by the graph layout pass (which lays tensors out) and the
// convolution schedule (whose micro-kernel writes them), so both agree.
// Also the CPU vector ISA as the schedules see it (CpuVectorIsa), a plain value the driver fills
// from codegen::Target, so schedule/, lower/ and graph/ need not know about codegen.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ingot {

// The vector ISA of a CPU target, as far as register-tile choices depend on it. The packed
// layouts (matmul panel width, channel block) follow vector_bits alone; the micro-kernel's lane
// count, name and the rows a tile may use follow the architecture: 128-bit x86 (SSE, 16 xmm) and
// NEON (32 q registers, fmla) differ although both have 128-bit vectors.
struct CpuVectorIsa {
  enum Arch { kX86, kAArch64 };
  Arch arch = kX86;
  int vector_bits = 512;  // widest vector register

  // x86 with that widest register (AVX-512 512, AVX/AVX2 256, SSE 128).
  static CpuVectorIsa x86(int bits) { return {kX86, bits}; }
  // AArch64 Advanced SIMD: 32 128-bit registers v0-v31, fmla.
  static CpuVectorIsa aarch64_neon() { return {kAArch64, 128}; }

  // FP32 lanes of the register-tile micro-kernel's vectors: NEON 4; x86 16 with AVX-512, else 8
  // (the AVX2 kernel, which LLVM splits into xmm halves on a 128-bit x86 target).
  int tile_lanes() const { return arch == kAArch64 ? 4 : vector_bits >= 512 ? 16 : 8; }
  // The micro-kernel name prefix: "aarch64_neon", "x86_avx512", "x86_avx2".
  const char* kernel_prefix() const {
    return arch == kAArch64 ? "aarch64_neon" : vector_bits >= 512 ? "x86_avx512" : "x86_avx2";
  }
};

// Two vector registers (32 floats on AVX-512, 16 on AVX2) when the channels divide into them,
// fill them but for at most 1/32 of padding (1000 classes: 1008 or 1024), or pad at most 1/8
// more than one-vector blocks would (58 and 116 channels pad to 64 and 128 either way; 232 to
// 256 instead of 240), else one, else (few channels) the channels rounded up to whole vectors.
// One-vector tiles broadcast a pixel per FMA, so their loads, not the FMAs, bound them (about
// 55% of the FMA peak against 85% for two-vector tiles): a little more padding is cheaper.
inline int channel_block(int64_t channels, int vector_bits) {
  int lanes = vector_bits >= 512 ? 16 : 8;
  int64_t pair = 2 * lanes, padded = (channels + pair - 1) / pair * pair;
  int64_t padded_one = (channels + lanes - 1) / lanes * lanes;
  if (channels % pair == 0 || (channels > pair && ((padded - channels) * 32 <= channels ||
                                                   (padded - padded_one) * 8 <= padded_one)))
    return int(pair);
  if (channels % lanes == 0 || channels > 2 * lanes) return lanes;
  return int((channels + lanes - 1) / lanes * lanes);
}

// The output blocks a groups = 1 convolution with `channels` outputs may take in a layout plan
// (`ingot tune`'s choice per chain of convolutions): one, two or three vectors where the
// channels pad them by at most 1/8 (and fill at least one), and always the default
// channel_block, which comes first.
inline std::vector<int64_t> channel_block_options(int64_t channels, int vector_bits) {
  const int64_t lanes = vector_bits >= 512 ? 16 : 8;
  std::vector<int64_t> options = {channel_block(channels, vector_bits)};
  for (int64_t b : {lanes, 2 * lanes, 3 * lanes}) {
    int64_t padded = (channels + b - 1) / b * b;
    if (b != options.front() && channels >= b && (padded - channels) * 8 <= channels)
      options.push_back(b);
  }
  return options;
}

// Which input blocks an output block of a blocked convolution reads. Output block ob (NR
// channels) of a conv with `groups` groups reads input blocks (IB channels each)
// [(ob / out_per_step) * in_per_step, ... + count): all of them when groups = 1; its group's
// when the group is at least NR wide (group outputs a multiple of NR, group inputs of IB); when
// the group is narrower, the input block of the same channels (lane groups: input and output
// channels equal, IB = NR; each lane reads its own group's). Empty otherwise (the conv stays in
// NCHW).
// Depthwise convolutions, and 2-D ones whose groups are narrower than a one-vector block, have
// their own computes (lower/compute/blocked_conv.h: depthwise_conv_compute) and are not described
// here.
struct ConvInputBlocks {
  int64_t count = 0, out_per_step = 1, in_per_step = 0;
};
inline std::optional<ConvInputBlocks> conv_input_blocks(int64_t ic, int64_t oc, int64_t groups,
                                                        int64_t ib, int64_t nr) {
  if (groups == 1) return ConvInputBlocks{(ic + ib - 1) / ib, 1, 0};
  if (groups < 1 || ic % groups || oc % groups) return std::nullopt;
  int64_t icg = ic / groups, ocg = oc / groups;
  if (ocg % nr == 0) {
    if (icg % ib) return std::nullopt;
    return ConvInputBlocks{icg / ib, ocg / nr, icg / ib};
  }
  // Narrower groups: lane groups, an output block over the same channels' input block (equal
  // channels and blocks; each lane sums its own group's inputs).
  if (nr % ocg || ic != oc || ib != nr) return std::nullopt;
  return ConvInputBlocks{1, 1, 1};
}

// The (input block, output block) of a grouped convolution (1 < groups, not depthwise) in the
// blocked layout: output blocks of two vectors, one, or one spanning several narrow groups; the
// input keeps `input_block` (0: none yet) when it fits, else takes one vector. Empty when no
// block fits (the conv stays in NCHW).
struct ConvBlocks {
  int64_t ib = 0, nr = 0;
};
inline std::optional<ConvBlocks> grouped_conv_blocks(int64_t ic, int64_t oc, int64_t groups,
                                                     int vector_bits, int64_t input_block) {
  int64_t lanes = vector_bits >= 512 ? 16 : 8;
  if (groups <= 1 || ic % groups || oc % groups) return std::nullopt;
  int64_t ocg = oc / groups;
  for (int64_t nr : {2 * lanes, lanes}) {
    if (ocg % nr != 0 && !(nr == lanes && lanes % ocg == 0)) continue;
    for (int64_t ib : {input_block, lanes})
      if (ib > 0 && conv_input_blocks(ic, oc, groups, ib, nr)) return ConvBlocks{ib, nr};
  }
  return std::nullopt;
}

// The channel blocks a target's convolution rules tile by: what the graph pass layout_nchwc lays
// tensors out in and what lowering blocks an NCHW conv's output by. The schedule layer gives it
// (schedule/rules/conv2d.h: conv_channel_blocks), so neither the graph passes nor lowering read
// the vector width (TVM's AlterOpLayout asks the op's strategy the same way).
struct ChannelBlockPolicy {
  // The output block of a groups = 1 conv with `channels` outputs: the register tile's NR.
  std::function<int64_t(int64_t channels)> conv_output;
  // The block of a tensor blocked for a reader that asks for none (an image's 3 channels: 3).
  std::function<int64_t(int64_t channels)> tensor;
  // (input, output) blocks of a grouped conv, keeping `input_block` (0: none) when it fits.
  std::function<std::optional<ConvBlocks>(int64_t ic, int64_t oc, int64_t groups,
                                          int64_t input_block)>
      grouped;
  // The output blocks a groups = 1 conv may take instead (channel_block_options; the default
  // first): what a layout plan chooses among.
  std::function<std::vector<int64_t>(int64_t channels)> conv_output_options;
  // A layout plan: conv node name -> output block (`ingot tune`'s conv_layout decisions). A
  // groups = 1 conv it names takes that block where conv_output_options allows it.
  std::map<std::string, int64_t> planned = {};
};

// The blocks above for `vector_bits`-wide vectors: channel_block, fewer channels than lanes as
// one block of them, grouped_conv_blocks.
inline ChannelBlockPolicy vector_channel_blocks(int vector_bits) {
  ChannelBlockPolicy p;
  p.conv_output = [vector_bits](int64_t c) { return int64_t(channel_block(c, vector_bits)); };
  p.tensor = [vector_bits](int64_t c) {
    int64_t lanes = vector_bits >= 512 ? 16 : 8;
    return c < lanes ? c : int64_t(channel_block(c, vector_bits));
  };
  p.grouped = [vector_bits](int64_t ic, int64_t oc, int64_t groups, int64_t input_block) {
    return grouped_conv_blocks(ic, oc, groups, vector_bits, input_block);
  };
  p.conv_output_options = [vector_bits](int64_t c) {
    return channel_block_options(c, vector_bits);
  };
  return p;
}

}  // namespace ingot
