#include "tools/cli/CommandLine.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "tessera/AutoBackend.hpp"
#include "tessera/Registry.hpp"
#include "tools/cli/Isolated.hpp"

namespace tessera {
namespace cli {

void check(const Status& s) {
  if (!s.isOk()) throw CommandError(s.message());
}

bool ArgReader::wantsHelp() const {
  for (const std::string& a : args_) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

bool ArgReader::option(const std::string& name, std::string* value) {
  if (done()) return false;
  const std::string& a = args_[pos_];
  if (a == name) {
    if (pos_ + 1 >= args_.size()) throw UsageError(name + " needs a value");
    *value = args_[pos_ + 1];
    pos_ += 2;
    return true;
  }
  if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=') {
    *value = a.substr(name.size() + 1);
    ++pos_;
    return true;
  }
  return false;
}

bool ArgReader::flag(const std::string& name) {
  if (done() || args_[pos_] != name) return false;
  ++pos_;
  return true;
}

int parseInt(const std::string& option, const std::string& text, int minValue) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < minValue || v > 1000000000L) {
    throw UsageError(option + " expects an integer >= " + std::to_string(minValue) + ", not '" +
                     text + "'");
  }
  return static_cast<int>(v);
}

double parseDouble(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0)) {
    throw UsageError(option + " expects a non-negative number, not '" + text + "'");
  }
  return v;
}

std::pair<std::string, std::string> parseNameValue(const std::string& option, const std::string& text,
                                                   const std::string& form) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError(option + " expects " + form + ", not '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

bool SessionChoice::parse(ArgReader& args) {
  std::string v;
  if (args.option("--backend", &v)) {
    BackendType t;
    if (v != "auto" && !parseBackendType(v, &t)) {
      throw UsageError("unknown backend '" + v + "' (expected cpu, opencl, vulkan or auto)");
    }
    backend = v;
    return true;
  }
  if (args.option("--precision", &v)) {
    if (v == "fp32") precision = Precision::kFP32;
    else if (v == "fp16") precision = Precision::kFP16;
    else throw UsageError("unknown precision '" + v + "' (expected fp32 or fp16)");
    return true;
  }
  if (args.option("--threads", &v)) {
    threads = parseInt("--threads", v, 1);
    return true;
  }
  return false;
}

namespace {

// Chooses the "auto" backends (tessera/AutoBackend.hpp) in a child process: a driver that
// crashes or leaves threads behind cannot harm this process (conformance forks per case
// after this). The child answers with the backends' names on one line, then its notes.
std::vector<BackendType> autoBackendsIsolated(const BackendOptions& opts) {
  IsolatedResult r = runIsolated(
      [&]() -> std::string {
        const AutoBackendChoice c = chooseAutoBackends(opts);
        std::string out;
        for (BackendType t : c.backends) out += std::string(backendTypeName(t)) + " ";
        for (const std::string& n : c.notes) out += "\n" + n;
        return out;
      },
      120);
  if (r.kind != IsolatedResult::kFinished) {
    std::fprintf(stderr, "tessera: choosing the auto backends failed (%s); using the CPU\n", r.describe().c_str());
    return {BackendType::kCPU};
  }
  std::istringstream in(r.output);
  std::string line, name;
  std::getline(in, line);
  std::vector<BackendType> out;
  std::istringstream names(line);
  while (names >> name) {
    BackendType t = BackendType::kCPU;
    if (parseBackendType(name, &t)) out.push_back(t);
  }
  while (std::getline(in, line)) std::fprintf(stderr, "tessera: %s\n", line.c_str());
  if (out.empty()) out.push_back(BackendType::kCPU);
  return out;
}

}  // namespace

SessionOptions SessionChoice::sessionOptions() const {
  SessionOptions o;
  o.precision = precision;
  o.threads = threads;
  const auto& registry = BackendRegistry::instance();
  if (backend != "auto") {
    BackendType t = BackendType::kCPU;
    parseBackendType(backend, &t);
    if (!registry.find(t)) {
      throw CommandError("backend '" + backend + "' is not built in this build");
    }
    o.backends = {t};
    return o;
  }
  BackendOptions bo;
  bo.precision = precision;
  bo.threads = threads;
  o.backends = autoBackendsIsolated(bo);
  return o;
}

const char* precisionName(Precision p) { return p == Precision::kFP16 ? "fp16" : "fp32"; }

int defaultThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

}  // namespace cli
}  // namespace tessera
