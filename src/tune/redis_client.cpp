// The tuner's Redis client (see redis_client.h).
#include "tune/redis_client.h"

#include <hiredis/hiredis.h>

#include <fmt/format.h>

#include "support/error.h"

namespace ingot::tune {

namespace {

RedisReply convert(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      out.kind = RedisReply::kInteger, out.integer = r->integer;
      break;
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
      out.kind = RedisReply::kString, out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.kind = RedisReply::kArray;
      for (size_t k = 0; k < r->elements; ++k) out.elements.push_back(convert(r->element[k]));
      break;
    default:
      break;
  }
  return out;
}

}  // namespace

std::string RedisAddress::str() const {
  return fmt::format("redis://{}:{}", host, port);
}

RedisAddress parse_redis_url(const std::string& url, const std::string& option) {
  const std::string scheme = "redis://";
  if (url.rfind(scheme, 0) != 0 || url.size() == scheme.size())
    fail_user("{}: '{}' is not a redis://HOST[:PORT] address", option, url);
  RedisAddress a;
  std::string rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  size_t colon = rest.rfind(':');
  a.host = rest.substr(0, colon);
  if (colon != std::string::npos) {
    std::string port = rest.substr(colon + 1);
    if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos ||
        port.size() > 5 || std::stoi(port) < 1 || std::stoi(port) > 65535)
      fail_user("{}: '{}' has no valid port", option, url);
    a.port = std::stoi(port);
  }
  if (a.host.empty()) fail_user("{}: '{}' has no host", option, url);
  return a;
}

RedisClient::RedisClient(const RedisAddress& address) : address_(address) {
  timeval tv{5, 0};
  ctx_ = redisConnectWithTimeout(address.host.c_str(), address.port, tv);
  if (ctx_ == nullptr || ctx_->err) {
    std::string why = ctx_ ? ctx_->errstr : "out of memory";
    if (ctx_) redisFree(ctx_);
    ctx_ = nullptr;
    fail_user("cannot connect to {}: {}", address.str(), why);
  }
}

RedisClient::~RedisClient() {
  if (ctx_) redisFree(ctx_);
}

RedisReply RedisClient::command_allow_error(const std::vector<std::string>& args,
                                            std::string* error) {
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) argv.push_back(a.data()), lens.push_back(a.size());
  auto* r =
      static_cast<redisReply*>(redisCommandArgv(ctx_, int(args.size()), argv.data(), lens.data()));
  if (r == nullptr)
    fail_user("{}: {} failed: {}", address_.str(), args.empty() ? "" : args[0],
              ctx_->errstr[0] ? ctx_->errstr : "connection lost");
  RedisReply out;
  if (r->type == REDIS_REPLY_ERROR) {
    std::string msg(r->str, r->len);
    freeReplyObject(r);
    if (!error) fail_user("{}: {} failed: {}", address_.str(), args[0], msg);
    *error = msg;
    return out;
  }
  out = convert(r);
  freeReplyObject(r);
  return out;
}

RedisReply RedisClient::command(const std::vector<std::string>& args) {
  return command_allow_error(args, nullptr);
}

std::vector<std::pair<std::string, std::string>> entry_fields(const RedisReply& fields) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t k = 0; k + 1 < fields.elements.size(); k += 2)
    out.emplace_back(fields.elements[k].str, fields.elements[k + 1].str);
  return out;
}

std::string field(const std::vector<std::pair<std::string, std::string>>& fields,
                  const std::string& name) {
  for (const auto& [k, v] : fields)
    if (k == name) return v;
  return "";
}

}  // namespace ingot::tune
