// ScheduleError: a user-facing error from a schedule primitive. It names the block or loop and
// says why the primitive does not apply; each primitive derives its own typed errors from it.
#pragma once

#include <fmt/format.h>

#include "support/error.h"

namespace ingot::schedule {

class ScheduleError : public UserError {
 public:
  using UserError::UserError;
};

// Throws E (a ScheduleError) with a formatted message.
template <typename E, typename... Args>
[[noreturn]] void fail_schedule(fmt::format_string<Args...> f, Args&&... args) {
  throw E(fmt::format(f, std::forward<Args>(args)...));
}

// Errors shared by every primitive: a handle that does not resolve.
class UnknownHandleError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

}  // namespace ingot::schedule
