// Settings shared by every benchmark of tessera_kernel_bench (set in BenchMain.cpp).
#pragma once

namespace tessera {
namespace bench {

// Threads for the Session and the bandwidth runs: --threads=N, else TESSERA_BENCH_THREADS,
// else 2 (the machine the targets of issue 9 were set for).
int benchThreads();
// A benchmark that could not run says so with SkipWithError and calls this, so the program
// exits non-zero (Google Benchmark itself exits 0) and the smoke test notices.
void markFailed();

}  // namespace bench
}  // namespace tessera
