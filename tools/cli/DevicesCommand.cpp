// `tessera devices`: every backend kind, whether this build has it, and what it finds.
#include <cstdio>

#include "tessera/Registry.hpp"
#include "tools/cli/Commands.hpp"
#include "tools/cli/Isolated.hpp"

namespace tessera {
namespace cli {

const char* const kDevicesHelp =
    "usage: tessera devices\n"
    "\n"
    "Lists each backend (cpu, opencl, vulkan): the devices it finds, why it is unavailable,\n"
    "or that it is not built in this build.\n";

int devicesCommand(ArgReader& args) {
  if (!args.done()) throw UsageError("unexpected argument '" + args.peek() + "'");
  const auto& registry = BackendRegistry::instance();
  for (BackendType t : {BackendType::kCPU, BackendType::kOpenCL, BackendType::kVulkan}) {
    const BackendFactory* f = registry.find(t);
    std::printf("%s:\n", backendTypeName(t));
    std::string text = "not built in this build";
    if (f && f->describeDevices) {
      // A driver that crashes while enumerating must not take the listing down with it.
      IsolatedResult r = runIsolated([f] { return f->describeDevices(); }, 60);
      text = r.kind == IsolatedResult::kFinished ? r.output
                                                 : "listing devices failed: " + r.describe();
    }
    // Indent every line of the backend's own text under its name.
    std::string indented = "  ";
    for (char c : text) {
      indented += c;
      if (c == '\n') indented += "  ";
    }
    while (!indented.empty() && (indented.back() == ' ' || indented.back() == '\n')) {
      indented.pop_back();
    }
    std::printf("%s\n", indented.c_str());
  }
  return 0;
}

}  // namespace cli
}  // namespace tessera
