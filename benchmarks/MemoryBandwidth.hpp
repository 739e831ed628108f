// STREAM-like bandwidth (copy and triad) on the benchmarks' thread count, for the
// bandwidth bound of memory-bound kernels: bound = bytes the kernel must move / bandwidth.
#pragma once
#include <cstddef>

namespace tessera {
namespace bench {

struct Bandwidth {
  double copyGBs = 0;   // b[i] = a[i]: reads one array, writes one
  double triadGBs = 0;  // a[i] = b[i] + s * c[i]: reads two, writes one
  double best() const { return copyGBs > triadGBs ? copyGBs : triadGBs; }
};

// Copy and triad over arrays of `arrayBytes` each on `threads` threads, counting bytes read
// and written as STREAM does; the best batch of passes. Measured once per (size, threads).
Bandwidth streamBandwidth(size_t arrayBytes, int threads);

// Main memory: arrays of 4x the L3 (STREAM's rule), at least 64 MiB.
size_t mainMemoryArrayBytes();
Bandwidth mainMemoryBandwidth(int threads);

}  // namespace bench
}  // namespace tessera
