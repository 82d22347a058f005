// The bytes a CPU schedule rule may count on staying in one core's L2 while the rest of its
// loop runs: half of a 512 KB L2, the smallest of the x86 server cores the rules are tuned on
// (Zen 3 and 4; Intel's are 1-2 MB). A compile-time constant: the target, not the host, decides
// the code, so the rules do not read this machine's caches.
#pragma once

#include <cstdint>

namespace ingot::schedule {

constexpr int64_t kCoreCacheBudgetBytes = 256 * 1024;

}  // namespace ingot::schedule
