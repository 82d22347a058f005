// Worker addresses: redis://HOST[:PORT] parses (default port 6379), anything else is refused with
// the option named; connecting to a port nobody listens on is a one-line user error.
#include <gtest/gtest.h>

#include "support/error.h"
#include "tune/redis_client.h"

namespace ingot::testing {
namespace {

std::string url_error(const std::string& url) {
  try {
    tune::parse_redis_url(url, "--workers");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(RedisUrl, ParsesHostAndPort) {
  tune::RedisAddress a = tune::parse_redis_url("redis://10.0.0.7:7000", "--workers");
  EXPECT_EQ(a.host, "10.0.0.7");
  EXPECT_EQ(a.port, 7000);
  EXPECT_EQ(a.str(), "redis://10.0.0.7:7000");
  EXPECT_EQ(tune::parse_redis_url("redis://tuner-box/", "--workers").port, 6379);
}

TEST(RedisUrl, BadAddressesAreRefused) {
  EXPECT_EQ(url_error("http://x:1"),
            "--workers: 'http://x:1' is not a redis://HOST[:PORT] address");
  EXPECT_EQ(url_error("redis://"), "--workers: 'redis://' is not a redis://HOST[:PORT] address");
  EXPECT_EQ(url_error("redis://h:0"), "--workers: 'redis://h:0' has no valid port");
  EXPECT_EQ(url_error("redis://h:99999"), "--workers: 'redis://h:99999' has no valid port");
  EXPECT_EQ(url_error("redis://h:x"), "--workers: 'redis://h:x' has no valid port");
  EXPECT_EQ(url_error("redis://:7000"), "--workers: 'redis://:7000' has no host");
}

TEST(RedisClient, NoServerIsAUserError) {
  // Port 1 on the loopback: nothing listens there.
  try {
    tune::RedisClient c(tune::parse_redis_url("redis://127.0.0.1:1", "--workers"));
    ADD_FAILURE() << "connected to port 1";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot connect to redis://127.0.0.1:1: "),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ingot::testing
