// The machine's peak fp32 rate for the kernel benchmarks' "%peak": vector width from cpuid,
// the clock measured, FMA pipes assumed (docs/PERFORMANCE.md, "Kernel micro-benchmarks").
#pragma once
#include <string>

namespace tessera {
namespace bench {

struct MachinePeak {
  std::string cpu;      // vendor, family/model, as cpuid reports them
  std::string isa;      // "avx512f", "avx2+fma" or "other"
  int lanes = 4;        // fp32 lanes of one FMA pipe as the core executes it (4: a guess)
  int fmaPipes = 2;     // assumed, not measured
  double ghz = 0;       // measured; 0 when it could not be
  int threads = 1;

  int flopPerCycle() const { return fmaPipes * lanes * 2; }  // a multiply-add counts 2
  double peakGflops() const { return threads * flopPerCycle() * ghz; }
  std::string describe() const;  // the arithmetic, one line
};

// Reads cpuid and times the clock once per process; `threads` scales the result. Where the
// FMA loop (MachinePeak/fma_chains) has run faster than that clock allows on `threads`, the
// clock is taken as the one that rate implies: the clock moves minute to minute on a shared
// host, and no kernel should read its %peak against a peak the machine was seen to exceed.
MachinePeak machinePeak(int threads);
// Records the FMA loop's best rate on `threads` (GFLOP/s), for machinePeak above.
void notePeakReached(int threads, double gflops);

}  // namespace bench
}  // namespace tessera
