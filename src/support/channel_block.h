// The channel block of CPU convolutions: how many channels sit together in the innermost
// dimension of a channel-blocked (NCHWc) tensor, and the output-channel width of the blocked
// convolution's register tile. Shared by the graph layout pass (which lays tensors out) and the
// convolution schedule (whose micro-kernel writes them), so both agree.
#pragma once

#include <cstdint>

namespace ingot {

// Two vector registers (32 floats on AVX-512, 16 on AVX2) when the channels divide into them,
// else one, else (few channels) the channels rounded up to whole vectors.
inline int channel_block(int64_t channels, int vector_bits) {
  int lanes = vector_bits >= 512 ? 16 : 8;
  if (channels % (2 * lanes) == 0) return 2 * lanes;
  if (channels % lanes == 0 || channels > 2 * lanes) return lanes;
  return int((channels + lanes - 1) / lanes * lanes);
}

}  // namespace ingot
