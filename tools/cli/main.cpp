// `tessera`: devices, run, conformance, bench. Errors print "tessera: error: <message>" and
// exit 2 for usage errors, 1 otherwise.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "tessera/Log.hpp"
#include "tools/cli/Commands.hpp"

namespace {

using namespace tessera::cli;

const char* const kMainHelp =
    "usage: tessera <command> [options]\n"
    "\n"
    "commands:\n"
    "  devices       list the backends of this build and the devices they find\n"
    "  run           run an ONNX model on .npy inputs, write .npy outputs\n"
    "  conformance   run ONNX backend-test cases and compare with their expected outputs\n"
    "  bench         time a model on random inputs\n"
    "  diff          find the op whose output differs between a backend and a reference\n"
    "\n"
    "`tessera <command> --help` describes a command's options.\n";

struct Command {
  const char* name;
  int (*fn)(ArgReader&);
  const char* const* help;
};

const Command kCommands[] = {
    {"devices", devicesCommand, &kDevicesHelp},
    {"run", runCommand, &kRunHelp},
    {"conformance", conformanceCommand, &kConformanceHelp},
    {"bench", benchCommand, &kBenchHelp},
    {"diff", diffCommand, &kDiffHelp},
};

void printError(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "tessera: error: %s\n", message.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kMainHelp, stderr);
    printError("no command given");
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    std::fputs(kMainHelp, stdout);
    return 0;
  }
  const Command* command = nullptr;
  for (const Command& c : kCommands) {
    if (name == c.name) command = &c;
  }
  if (!command) {
    printError("unknown command '" + name + "' (see tessera --help)");
    return 2;
  }
  // The library's notes (a corrupt cache file discarded and rebuilt...) go to stderr.
  tessera::setLogHandler([](tessera::LogLevel level, const std::string& message) {
    std::fprintf(stderr, "tessera: %s: %s\n", level == tessera::LogLevel::kWarning ? "warning" : "note",
                 message.c_str());
  });
  ArgReader args(std::vector<std::string>(argv + 2, argv + argc));
  if (args.wantsHelp()) {
    std::fputs(*command->help, stdout);
    return 0;
  }
  try {
    return command->fn(args);
  } catch (const UsageError& e) {
    printError(std::string(e.what()) + " (see tessera " + name + " --help)");
    return 2;
  } catch (const CommandError& e) {
    printError(e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    printError("out of memory");
    return 1;
  } catch (const std::exception& e) {
    printError(e.what());
    return 1;
  }
}
