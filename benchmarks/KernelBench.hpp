// One kernel benchmark: a one-node graph built through the public API, with constant
// weights, planned once on the CPU backend, then only Session::run timed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/Tessera.hpp"

namespace tessera {
namespace bench {

struct KernelCase {
  std::string name;             // as Google Benchmark lists it, e.g. "Conv3x3/64to64/56x56"
  std::string opType;           // "Conv", "ConvTranspose", "MatMul"
  Shape input;                  // the one graph input, NCHW fp32
  Shape output;                 // what the op must produce (checked)
  std::vector<Shape> constants; // weights (then bias), filled with random values
  Attributes attrs;
  double flops = 0;             // multiply-adds x 2 of the operation as defined
  bool memoryBound = false;     // report the bandwidth bound ("bound_ms", "x_bound")
};

// Adds a case (from a static initializer: returns true). registerKernels, called by main,
// hands them to Google Benchmark: those judged by %peak first, then the memory-bound ones,
// so each group prints under one table header.
bool addKernel(const KernelCase& c);
void registerKernels();

// 2 * N * Cout * Hout * Wout * (Cin / group) * kh * kw.
double convFlops(int64_t n, int64_t cout, int64_t hout, int64_t wout, int64_t cinPerGroup,
                 int64_t kh, int64_t kw);

}  // namespace bench
}  // namespace tessera
