// tessera_kernel_bench: Google Benchmark's main plus --threads, the machine's peak arithmetic
// in the context header, and a non-zero exit when a benchmark failed or none ran.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "BenchOptions.hpp"
#include "KernelBench.hpp"
#include "MachinePeak.hpp"

namespace tessera {
namespace bench {
namespace {

int threadsSetting = 2;
std::atomic<bool> failed{false};

bool parseThreads(const char* s, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end || v < 1 || v > 1024) return false;
  *out = int(v);
  return true;
}

}  // namespace

int benchThreads() { return threadsSetting; }
void markFailed() { failed = true; }

}  // namespace bench
}  // namespace tessera

int main(int argc, char** argv) {
  using namespace tessera::bench;
  if (const char* env = std::getenv("TESSERA_BENCH_THREADS"); env && *env && !parseThreads(env, &threadsSetting)) {
    std::fprintf(stderr, "TESSERA_BENCH_THREADS='%s' is not a thread count\n", env);
    return 2;
  }
  // Take --threads=N out of argv before Google Benchmark sees it (it rejects unknown flags).
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0)
      std::printf("tessera_kernel_bench [--threads=N] (default: TESSERA_BENCH_THREADS, else 2)\n"
                  "  and Google Benchmark's flags:\n");
    if (std::strncmp(argv[i], "--threads=", 10) == 0) {
      if (!parseThreads(argv[i] + 10, &threadsSetting)) {
        std::fprintf(stderr, "%s: not a thread count\n", argv[i]);
        return 2;
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  registerKernels();
  const MachinePeak peak = machinePeak(benchThreads());
  benchmark::AddCustomContext("threads", std::to_string(benchThreads()));
  benchmark::AddCustomContext("peak", peak.describe());
  // Zero benchmarks run (a filter that no longer matches) fails too: the smoke test must not
  // pass by measuring nothing.
  const size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return failed || ran == 0 ? 1 : 0;
}
