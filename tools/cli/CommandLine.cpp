#include "tools/cli/CommandLine.hpp"

#include <cstdio>
#include <cstdlib>
#include <thread>

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

// Creates the backend in a child process: a driver that crashes or leaves threads behind
// cannot harm this process (conformance forks per case after this).
Status probeBackend(const BackendFactory& f, const BackendOptions& opts) {
  IsolatedResult r = runIsolated(
      [&]() -> std::string {
        std::unique_ptr<Backend> b;
        Status s = f.create(opts, &b);
        if (!s.isOk()) return "!" + s.message();
        const DeviceKind k = b->deviceKind();
        if (k == DeviceKind::kDiscreteGPU || k == DeviceKind::kIntegratedGPU) return std::string();
        return "!its device (" + b->deviceName() + ") is not a GPU; auto uses the CPU backend instead "
               "(ask for it by name to use it)";
      },
      60);
  if (r.kind != IsolatedResult::kFinished) return Status::unavailable(r.describe());
  if (!r.output.empty()) return Status::unavailable(r.output.substr(1));
  return Status::ok();
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
  o.backends.clear();
  for (BackendType t : {BackendType::kVulkan, BackendType::kOpenCL}) {
    const BackendFactory* f = registry.find(t);
    if (!f) continue;
    Status s = probeBackend(*f, bo);
    if (s.isOk()) {
      o.backends.push_back(t);
    } else {
      std::fprintf(stderr, "tessera: %s backend not used: %s\n", backendTypeName(t),
                   s.message().c_str());
    }
  }
  o.backends.push_back(BackendType::kCPU);
  return o;
}

const char* precisionName(Precision p) { return p == Precision::kFP16 ? "fp16" : "fp32"; }

int defaultThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

}  // namespace cli
}  // namespace tessera
