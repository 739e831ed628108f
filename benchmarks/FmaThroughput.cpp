// A check of the peak's assumptions: independent FMA chains in registers, on the benchmarks'
// threads, at the vector width the kernels use (512-bit on the AVX-512 path). Near
// 100% "%peak" means the FMA-pipe and lane counts of MachinePeak hold on this CPU.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "BenchOptions.hpp"
#include "MachinePeak.hpp"
#include "tessera/ThreadPool.hpp"

namespace tessera {
namespace bench {
namespace {

// 12 chains: more than FMA latency (4-5 cycles) x 2 pipes, fewer than the 16 ymm registers.
constexpr int kChains = 12;

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) float fmaLoop256(int64_t iters) {
  __m256 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm256_set1_ps(float(j));
  const __m256 x = _mm256_set1_ps(0.9999f), y = _mm256_set1_ps(0.0001f);  // stays finite
  for (int64_t i = 0; i < iters; ++i)
    for (int j = 0; j < kChains; ++j) acc[j] = _mm256_fmadd_ps(acc[j], x, y);
  for (int j = 1; j < kChains; ++j) acc[0] = _mm256_add_ps(acc[0], acc[j]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc[0]);
  float sum = 0;
  for (float v : lanes) sum += v;
  return sum;
}

__attribute__((target("avx512f"))) float fmaLoop512(int64_t iters) {
  __m512 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm512_set1_ps(float(j));
  const __m512 x = _mm512_set1_ps(0.9999f), y = _mm512_set1_ps(0.0001f);
  for (int64_t i = 0; i < iters; ++i)
    for (int j = 0; j < kChains; ++j) acc[j] = _mm512_fmadd_ps(acc[j], x, y);
  for (int j = 1; j < kChains; ++j) acc[0] = _mm512_add_ps(acc[0], acc[j]);
  alignas(64) float lanes[16];  // every lane used, so none of the work can be dropped
  _mm512_store_ps(lanes, acc[0]);
  float sum = 0;
  for (float v : lanes) sum += v;
  return sum;
}
#endif

void fmaThroughput(benchmark::State& state) {
  const MachinePeak peak = machinePeak(benchThreads());
#if defined(__x86_64__)
  if (peak.isa != "other") {
    const bool wide = peak.isa == "avx512f";
    const int lanes = wide ? 16 : 8;
    const int64_t iters = 2000000;  // ~13 ms at 32 FLOP/cycle and 3.5 GHz
    ThreadPool pool(peak.threads);
    double best = 0;
    for (auto _ : state) {
      const auto t0 = std::chrono::steady_clock::now();
      pool.parallelFor(peak.threads, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) benchmark::DoNotOptimize(wide ? fmaLoop512(iters) : fmaLoop256(iters));
      });
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      state.SetIterationTime(s);
      best = std::max(best, peak.threads * double(iters) * kChains * lanes * 2 / s / 1e9);
    }
    state.counters["GFLOP/s"] = best;  // the best iteration: the machine is shared
    if (peak.ghz > 0) state.counters["%peak"] = 100 * best / peak.peakGflops();
    std::string label = wide ? "512-bit FMA" : "256-bit FMA";
    if (peak.ghz > 0 && best > peak.peakGflops()) {  // the clock read low: later rows use this rate
      notePeakReached(peak.threads, best);
      const MachinePeak now = machinePeak(peak.threads);
      char raised[64];
      std::snprintf(raised, sizeof raised, "; peak now %.1f GFLOP/s (%.2f GHz)", now.peakGflops(), now.ghz);
      label += raised;
    }
    state.SetLabel(label);
    return;
  }
#endif
  state.SkipWithError("no AVX2+FMA or AVX-512F on this CPU");
}
BENCHMARK(fmaThroughput)->Name("MachinePeak/fma_chains")->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bench
}  // namespace tessera
