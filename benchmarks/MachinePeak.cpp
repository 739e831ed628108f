#include "MachinePeak.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "backends/cpu/CpuIsa.hpp"

namespace tessera {
namespace bench {
namespace {

// A chain of dependent adds retires one add per cycle on every x86 core of the last decade
// (latency 1), so adds / seconds is the clock of the core running it. The operand is a
// register, not an immediate: recent cores can collapse chains of immediate adds at rename.
double measureGhz() {
#if defined(__x86_64__)
  using Clock = std::chrono::steady_clock;
  constexpr int64_t kAddsPerLoop = 1000;  // the .rept count below
  constexpr int64_t kLoops = 3000;        // 3e6 cycles: ~1 ms at 3 GHz
  // Best of many short trials: the machine is shared, and a trial the scheduler or the
  // hypervisor interrupted only reads slower; none can read faster than the clock.
  double best = 0;
  for (int trial = 0; trial < 50; ++trial) {
    uint64_t x = 0, one = 1;
    const auto t0 = Clock::now();
    for (int64_t i = 0; i < kLoops; ++i)
      asm volatile(".rept 1000\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(one));
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (x != uint64_t(kLoops * kAddsPerLoop)) return 0;
    best = std::max(best, double(kLoops * kAddsPerLoop) / s / 1e9);
  }
  return best;
#else
  return 0;
#endif
}

MachinePeak detect() {
  MachinePeak m;
  m.isa = "other";
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  char vendor[13] = {};
  __get_cpuid(0, &a, &b, &c, &d);
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  __get_cpuid(1, &a, &b, &c, &d);
  unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
  if (family == 0xf) family += (a >> 20) & 0xff;
  if (family == 0x6 || family >= 0xf) model |= ((a >> 16) & 0xf) << 4;
  char cpu[64];
  std::snprintf(cpu, sizeof cpu, "%s family 0x%x model 0x%x", vendor, family, model);
  m.cpu = cpu;
  // __builtin_cpu_supports reads the same cpuid bits (leaf 7 EBX 16 / 5, leaf 1 ECX 12) and
  // also checks that the OS saves the vector registers (XGETBV).
  __builtin_cpu_init();
  const bool amd = std::strcmp(vendor, "AuthenticAMD") == 0;
  // The kernels' instruction set (TESSERA_CPU_ISA may force a narrower one than the CPU has):
  // forced to AVX2, an AVX-512 core's kernels can reach only its 256-bit rate. The portable
  // path is measured against AVX2's peak too.
  if (__builtin_cpu_supports("avx512f") && cpuIsa() == CpuIsa::kAvx512) {
    m.isa = "avx512f";
    // Zen 4 (family 0x19) executes a 512-bit op as two 256-bit halves on its two 256-bit FMA
    // pipes: the same 32 FLOP/cycle as AVX2. Zen 5 (0x1a) and Intel's AVX-512 server cores
    // are taken to have two 512-bit FMA pipes (some Xeon Silver/Bronze have one: there this
    // overstates the peak 2x).
    m.lanes = (amd && family < 0x1a) ? 8 : 16;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    m.isa = "avx2+fma";
    m.lanes = 8;  // two 256-bit FMA pipes: Haswell and later, Zen 2 and later
    if (cpuIsa() != CpuIsa::kAvx2) m.isa = std::string("avx2+fma peak, kernels ") + cpuIsaName(cpuIsa());
  }
#endif
  m.ghz = measureGhz();
  return m;
}

}  // namespace

std::string MachinePeak::describe() const {
  char s[256];
  std::snprintf(s, sizeof s,
                "%s, %s: %d threads x %d FLOP/cycle (%d FMA pipes x %d fp32 lanes x 2) x %.2f GHz = "
                "%.1f GFLOP/s",
                cpu.c_str(), isa.c_str(), threads, flopPerCycle(), fmaPipes, lanes, ghz, peakGflops());
  return s;
}

namespace {
std::mutex reachedMutex;
std::map<int, double> reachedGflops;  // threads -> the FMA loop's best rate
}  // namespace

MachinePeak machinePeak(int threads) {
  static const MachinePeak once = detect();
  MachinePeak m = once;
  m.threads = threads;
  std::lock_guard<std::mutex> lock(reachedMutex);
  auto it = reachedGflops.find(threads);
  if (it != reachedGflops.end() && m.ghz > 0) m.ghz = std::max(m.ghz, it->second / (threads * m.flopPerCycle()));
  return m;
}

void notePeakReached(int threads, double gflops) {
  std::lock_guard<std::mutex> lock(reachedMutex);
  double& best = reachedGflops[threads];
  best = std::max(best, gflops);
}

}  // namespace bench
}  // namespace tessera
