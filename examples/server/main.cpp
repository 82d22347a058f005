// ingot_server: serves compiled ingot artifacts over HTTP with the KServe v2 / Triton protocol
// (docs/server.md).
//
//   ingot_server --model NAME=PATH.so [--model ...] [--host 127.0.0.1] [--port 8080]
//                [--sessions N] [--queue-depth Q] [--deadline-ms D] [--max-body-bytes B]
//                [--threads-per-run T] [--http-threads H]
//
// Prints "listening on HOST:PORT" on stdout once bound (port 0 picks a free one), loads the models
// and turns ready. SIGHUP reloads every model; SIGTERM / SIGINT stop accepting, let the accepted
// requests finish and exit 0. Startup errors print one "error: ..." line on stderr, exit 1 (2 for
// a bad option).
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "server.h"

namespace {

int fail(const std::string& message, int code = 1) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return code;
}

bool valid_model_name(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  for (unsigned char c : name) {
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // Every thread blocks these (threads started later inherit the mask); the signal thread below
  // takes them with sigwait, so no handler ever runs in a signal context.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client that hangs up mid-reply is an error return, not a signal

  ingot::server::ServerOptions opt;
  unsigned cores = std::thread::hardware_concurrency();
  opt.sessions = cores > 0 ? static_cast<int>(cores) : 1;
  std::vector<std::string> models;
  int threads_per_run = 0;

  CLI::App app{"ingot_server: serves compiled ingot artifacts over HTTP (KServe v2 protocol)"};
  app.add_option("--model", models, "A model to serve, NAME=PATH.so (repeatable)")
      ->required()
      ->type_name("NAME=PATH");
  app.add_option("--host", opt.host, "Address to listen on")->capture_default_str();
  app.add_option("--port", opt.port, "Port to listen on; 0 picks a free one")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  app.add_option("--sessions", opt.sessions,
                 "Sessions per model: requests of one model that run at once")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_option("--queue-depth", opt.queue_depth,
                 "Requests per model that may wait for a session; more get 503")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  app.add_option("--deadline-ms", opt.deadline_ms,
                 "Longest wait for a session (ms); later gets 504. X-Deadline-Ms may lower it")
      ->check(CLI::Range(1, 3600 * 1000))
      ->capture_default_str();
  app.add_option("--max-body-bytes", opt.max_body_bytes, "Largest request body; larger gets 413")
      ->check(CLI::Range(size_t{1}, size_t{1} << 40))
      ->capture_default_str();
  app.add_option("--threads-per-run", threads_per_run,
                 "Threads of the runtime's process-wide pool (ingot_set_num_threads); 0 keeps "
                 "its default")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  app.add_option("--http-threads", opt.http_threads,
                 "HTTP worker threads (connections served at once); 0: models x (sessions + "
                 "queue-depth) + 16, at most 1024")
      ->check(CLI::Range(0, 1 << 16))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(e.what(), 2);
  }

  for (const std::string& m : models) {
    size_t eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size()) {
      return fail("--model needs NAME=PATH, got '" + m + "'", 2);
    }
    std::string name = m.substr(0, eq), path = m.substr(eq + 1);
    if (!valid_model_name(name)) {
      return fail("model name '" + name + "' must be 1-128 of A-Z a-z 0-9 _ - .", 2);
    }
    for (const auto& [other, _] : opt.models) {
      if (other == name) return fail("model name '" + name + "' is given twice", 2);
    }
    if (access(path.c_str(), R_OK) != 0) {
      return fail("model '" + name + "': cannot read " + path + ": " + std::strerror(errno));
    }
    opt.models.emplace_back(name, path);
  }

  try {
    if (threads_per_run > 0) ingot::rt::set_num_threads(threads_per_run);
    ingot::server::InferenceServer server(opt);
    int port = server.bind();
    std::printf("listening on %s:%d\n", opt.host.c_str(), port);
    std::fflush(stdout);

    std::atomic<bool> served_until_stop{true};
    std::thread serving([&] { served_until_stop = server.serve(); });
    std::atomic<bool> exiting{false};
    std::thread signal_thread([&] {
      bool stopping = false;
      for (;;) {
        int sig = 0;
        if (sigwait(&signals, &sig) != 0) continue;
        if (exiting) return;  // main's wake-up: the server has stopped
        if (sig == SIGHUP) {
          if (!stopping) server.reload_all();
        } else if (!stopping) {
          std::fprintf(stderr,
                       "ingot_server: %s: finishing the accepted requests, then exiting (send it "
                       "again to exit at once)\n",
                       strsignal(sig));
          stopping = true;
          server.stop();
        } else {
          std::fprintf(stderr, "ingot_server: %s again: exiting now\n", strsignal(sig));
          std::_Exit(1);
        }
      }
    });

    int exit_code = 0;
    try {
      server.load_models();
    } catch (const std::exception& e) {
      exit_code = fail(e.what());
      server.stop();
    }
    serving.join();
    if (!served_until_stop && exit_code == 0) {
      exit_code = fail("the HTTP server stopped accepting connections unexpectedly");
    }
    exiting = true;
    pthread_kill(signal_thread.native_handle(), SIGTERM);
    signal_thread.join();
    return exit_code;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}
