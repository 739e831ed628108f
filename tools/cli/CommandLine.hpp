// Argument reading and the options shared by the subcommands (backend, precision, threads),
// plus the two error kinds the `tessera` command turns into exit codes.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/Session.hpp"
#include "tessera/Status.hpp"

namespace tessera {
namespace cli {

// Bad command line: printed with a hint to --help, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Anything else that fails: exit code 1.
struct CommandError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws CommandError with the status message when `s` is not ok.
void check(const Status& s);

// Walks the arguments of one subcommand. Options take their value as the next argument
// or after '=' (`--backend cpu`, `--backend=cpu`).
class ArgReader {
 public:
  explicit ArgReader(std::vector<std::string> args) : args_(std::move(args)) {}
  bool done() const { return pos_ >= args_.size(); }
  const std::string& peek() const { return args_[pos_]; }
  std::string take() { return args_[pos_++]; }
  bool wantsHelp() const;
  // Consumes `name` and its value when the next argument is that option.
  bool option(const std::string& name, std::string* value);
  // Consumes the flag `name` when it is next.
  bool flag(const std::string& name);

 private:
  std::vector<std::string> args_;
  size_t pos_ = 0;
};

int parseInt(const std::string& option, const std::string& text, int minValue);
double parseDouble(const std::string& option, const std::string& text);
// "NAME=VALUE" of an option such as --input or --shape, both parts non-empty; a UsageError
// quoting `form` ("NAME=FILE.npy") otherwise.
std::pair<std::string, std::string> parseNameValue(const std::string& option, const std::string& text,
                                                   const std::string& form);

// --backend / --precision / --threads, shared by run, bench and conformance.
struct SessionChoice {
  std::string backend = "cpu";  // cpu | opencl | vulkan | auto
  Precision precision = Precision::kFP32;
  int threads = 1;
  // Consumes one of the three options when it is next in `args`.
  bool parse(ArgReader& args);
  // SessionOptions for this choice. "auto" keeps, in the order vulkan > opencl > cpu, the
  // registered backends that can be created (each failure is said on stderr); a named
  // backend that is not in this build is an error.
  SessionOptions sessionOptions() const;
};

const char* precisionName(Precision p);
int defaultThreads();  // the machine's hardware threads

}  // namespace cli
}  // namespace tessera
