// A small synchronous Redis client over hiredis (Debian libhiredis-dev) for the tuner's
// measurement queue: commands as argument vectors (binary-safe), replies converted to a plain
// tree, errors as UserErrors naming the server and the command.
#pragma once

#include <memory>
#include <string>
#include <vector>

struct redisContext;

namespace ingot::tune {

// A reply: nil, an integer, a string (status and bulk strings), or an array. Error replies
// throw instead.
struct RedisReply {
  enum Kind { kNil, kInteger, kString, kArray } kind = kNil;
  long long integer = 0;
  std::string str;
  std::vector<RedisReply> elements;
};

struct RedisAddress {
  std::string host;
  int port = 6379;
  std::string str() const;
};

// "redis://HOST[:PORT]" (UserError naming the option otherwise).
RedisAddress parse_redis_url(const std::string& url, const std::string& option);

class RedisClient {
 public:
  explicit RedisClient(const RedisAddress& address);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  RedisReply command(const std::vector<std::string>& args);
  // The same, but an error reply comes back as a string starting with "ERR"/"BUSYGROUP"/...
  // instead of throwing (for commands whose errors are expected, e.g. XGROUP CREATE twice).
  RedisReply command_allow_error(const std::vector<std::string>& args, std::string* error);

 private:
  RedisAddress address_;
  redisContext* ctx_ = nullptr;
};

// A stream entry's fields as name -> value (from the flat [f1, v1, f2, v2, ...] array).
std::vector<std::pair<std::string, std::string>> entry_fields(const RedisReply& fields);
std::string field(const std::vector<std::pair<std::string, std::string>>& fields,
                  const std::string& name);

}  // namespace ingot::tune
