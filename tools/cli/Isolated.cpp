#include "tools/cli/Isolated.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>

namespace tessera {
namespace cli {
namespace {

// Exit codes the child uses to say how the function ended.
constexpr int kChildReturned = 0;
constexpr int kChildThrew = 70;

void writeAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

[[noreturn]] void childMain(int fd, const std::function<std::string()>& fn) {
  int code = kChildReturned;
  std::string out;
  try {
    out = fn();
  } catch (const std::exception& e) {
    out = e.what();
    code = kChildThrew;
  } catch (...) {
    out = "unknown exception";
    code = kChildThrew;
  }
  writeAll(fd, out);
  ::close(fd);
  std::fflush(nullptr);
  // _exit: the parent's atexit handlers and static destructors are not the child's to run.
  ::_exit(code);
}

}  // namespace

std::string IsolatedResult::describe() const {
  switch (kind) {
    case kFinished: return "finished";
    case kThrew: return "threw an exception: " + output;
    case kCrashed: return "crashed (signal " + std::to_string(signal) + ")";
    case kTimedOut: return "timed out after " + std::to_string(timeoutSeconds) + " s";
    case kExited: return "exited with code " + std::to_string(exitCode) + " before finishing";
    case kCouldNotRun: return "could not start a child process: " + output;
  }
  return "unknown";
}

IsolatedResult runIsolated(const std::function<std::string()>& fn, int timeoutSeconds) {
  IsolatedResult r;
  r.timeoutSeconds = timeoutSeconds;
  int fds[2];
  if (::pipe(fds) != 0) {
    r.output = std::strerror(errno);
    return r;
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.output = std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return r;
  }
  if (pid == 0) {
    ::close(fds[0]);
    childMain(fds[1], fn);
  }
  ::close(fds[1]);

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(timeoutSeconds);
  bool timedOut = false;
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      timedOut = true;
      break;
    }
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child closed its end (or died)
    r.output.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timedOut) ::kill(pid, SIGKILL);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timedOut) {
    r.kind = IsolatedResult::kTimedOut;
  } else if (WIFSIGNALED(status)) {
    r.kind = IsolatedResult::kCrashed;
    r.signal = WTERMSIG(status);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kChildReturned) {
    r.kind = IsolatedResult::kFinished;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kChildThrew) {
    r.kind = IsolatedResult::kThrew;
  } else {
    r.kind = IsolatedResult::kExited;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return r;
}

}  // namespace cli
}  // namespace tessera
