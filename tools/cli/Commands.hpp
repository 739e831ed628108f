// The `tessera` subcommands. Each returns the process exit code, throws UsageError for a
// bad command line and CommandError for anything else that fails.
#pragma once
#include "tools/cli/CommandLine.hpp"

namespace tessera {
namespace cli {

int devicesCommand(ArgReader& args);
int runCommand(ArgReader& args);
int conformanceCommand(ArgReader& args);
int benchCommand(ArgReader& args);
int diffCommand(ArgReader& args);

extern const char* const kDevicesHelp;
extern const char* const kRunHelp;
extern const char* const kConformanceHelp;
extern const char* const kBenchHelp;
extern const char* const kDiffHelp;

}  // namespace cli
}  // namespace tessera
