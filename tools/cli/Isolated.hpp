// Runs a function in a forked child process, so that a crash, a hang or a driver that
// misbehaves costs only that child: the caller gets what the function returned, or why not.
#pragma once
#include <functional>
#include <string>

namespace tessera {
namespace cli {

struct IsolatedResult {
  enum Kind {
    kFinished,     // the function returned; `output` is what it returned
    kThrew,        // it threw; `output` is the exception's message
    kCrashed,      // killed by `signal`
    kTimedOut,     // ran past the time limit and was killed
    kExited,       // the child called exit(`exitCode`) before returning
    kCouldNotRun,  // fork or pipe failed; `output` says why
  };
  Kind kind = kCouldNotRun;
  std::string output;
  int signal = 0;
  int exitCode = 0;
  int timeoutSeconds = 0;
  // "crashed (signal 11)", "timed out after 60 s", ...
  std::string describe() const;
};

// Flushes stdio first so the child does not print the parent's buffered text again.
IsolatedResult runIsolated(const std::function<std::string()>& fn, int timeoutSeconds);

}  // namespace cli
}  // namespace tessera
