// Error types: UserError (bad model, bad option, bad input: shown to users as one line) and
// InternalError (a broken compiler invariant: a bug, reported as such). Never mix them.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace ingot {

// A problem with what the user gave us (model, option, file, input). The message is one line,
// names the offending thing, and is printed verbatim after "error: ".
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& msg) : std::runtime_error(msg) {}
};

// A broken internal invariant. Users see "internal error (this is a bug in ingot): ..." only.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& msg) : std::logic_error(msg) {}
};

template <typename... Args>
[[noreturn]] void fail_user(fmt::format_string<Args...> f, Args&&... args) {
  throw UserError(fmt::format(f, std::forward<Args>(args)...));
}

template <typename... Args>
[[noreturn]] void fail_internal(fmt::format_string<Args...> f, Args&&... args) {
  throw InternalError(fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace ingot

// Internal invariant check: INGOT_ICHECK(cond, "fmt {}", args...).
#define INGOT_ICHECK(cond, ...)                                                         \
  do {                                                                                  \
    if (!(cond))                                                                        \
      ::ingot::fail_internal("{}:{}: check '{}' failed: {}", __FILE__, __LINE__, #cond, \
                             ::fmt::format(__VA_ARGS__));                               \
  } while (0)
