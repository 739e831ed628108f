#include "MemoryBandwidth.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "BenchOptions.hpp"
#include "tessera/ThreadPool.hpp"

namespace tessera {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

// The same pool type the CPU backend runs its kernels on, so the bandwidth pays the same
// fork/join cost per pass as a kernel does.
struct Stream {
  ThreadPool pool;
  std::vector<float> a, b, c;
  int threads;

  Stream(size_t n, int t) : pool(t), a(n, 1.f), b(n, 2.f), c(n, 0.5f), threads(t) {}

  // Each thread takes one contiguous slice, as STREAM's static OpenMP schedule does.
  template <typename F> void slices(F f) {
    const size_t n = a.size();
    pool.parallelFor(threads, [&](int64_t b0, int64_t e0) {
      for (int64_t t = b0; t < e0; ++t) f(n * t / threads, n * (t + 1) / threads);
    });
  }
  void copy() {
    slices([&](size_t i0, size_t i1) { std::copy(a.data() + i0, a.data() + i1, b.data() + i0); });
  }
  void triad() {
    slices([&](size_t i0, size_t i1) {
      float* x = a.data();
      const float* y = b.data();
      const float* z = c.data();
      for (size_t i = i0; i < i1; ++i) x[i] = y[i] + 0.5f * z[i];
    });
  }
};

// Best rate in GB/s over batches of passes, each batch at least 0.2 ms (so clock reads and
// the pool's wake-up stay small), for 60 ms in all: the machine is shared, and an
// interrupted batch only reads slower.
template <typename F> double bestRate(double bytesPerPass, F pass) {
  pass();  // first touch and warm-up
  double best = 0;
  const auto end = Clock::now() + std::chrono::milliseconds(60);
  int passes = 1;
  do {
    const auto t0 = Clock::now();
    for (int i = 0; i < passes; ++i) pass();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::max(best, bytesPerPass * passes / s / 1e9);
    if (s < 2e-4) passes *= 2;
  } while (Clock::now() < end);
  return best;
}

Bandwidth measure(size_t arrayBytes, int threads) {
  Stream s(std::max<size_t>(arrayBytes / sizeof(float), 1024), threads);
  const double bytes = double(s.a.size() * sizeof(float));
  Bandwidth bw;
  bw.copyGBs = bestRate(2 * bytes, [&] { s.copy(); });
  bw.triadGBs = bestRate(3 * bytes, [&] { s.triad(); });
  benchmark::DoNotOptimize(s.a.data());
  return bw;
}

// The largest data or unified cache of a level, as Google Benchmark reads it (sysfs); glibc's
// sysconf(_SC_LEVEL3_CACHE_SIZE) reads 320 MiB for this machine's 32 MiB L3.
size_t cacheBytes(int level, size_t fallback) {
  size_t bytes = 0;
  for (const auto& c : benchmark::CPUInfo::Get().caches)
    if (c.level == level && c.type != "Instruction") bytes = std::max(bytes, size_t(c.size));
  return bytes ? bytes : fallback;
}

// Rows for the table: arrays that fit the L2 (a quarter of it each), the L3 (an eighth), and
// main memory (the one the bounds use).
void bandwidthRow(benchmark::State& state, size_t arrayBytes) {
  Bandwidth bw;
  for (auto _ : state) {
    bw = streamBandwidth(arrayBytes, benchThreads());
    state.SetIterationTime(2.0 * double(arrayBytes) / (bw.copyGBs * 1e9));  // "Time": one copy pass
  }
  state.counters["copy_GB/s"] = bw.copyGBs;
  state.counters["triad_GB/s"] = bw.triadGBs;
  state.counters["array_MiB"] = double(arrayBytes) / (1 << 20);
}

[[maybe_unused]] const bool registered = [] {
  const std::pair<const char*, size_t> rows[] = {{"MemoryBandwidth/in_L2", cacheBytes(2, 1 << 20) / 4},
                                                 {"MemoryBandwidth/in_L3", cacheBytes(3, 32 << 20) / 8},
                                                 {"MemoryBandwidth/main_memory", mainMemoryArrayBytes()}};
  for (const auto& r : rows)
    benchmark::RegisterBenchmark(r.first, bandwidthRow, r.second)
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace

Bandwidth streamBandwidth(size_t arrayBytes, int threads) {
  static std::mutex mu;
  static std::map<std::pair<size_t, int>, Bandwidth> measured;
  std::lock_guard<std::mutex> lock(mu);
  auto it = measured.find({arrayBytes, threads});
  if (it == measured.end())
    it = measured.emplace(std::make_pair(arrayBytes, threads), measure(arrayBytes, threads)).first;
  return it->second;
}

size_t mainMemoryArrayBytes() { return std::max(4 * cacheBytes(3, 32 << 20), size_t(64) << 20); }

Bandwidth mainMemoryBandwidth(int threads) { return streamBandwidth(mainMemoryArrayBytes(), threads); }

}  // namespace bench
}  // namespace tessera
