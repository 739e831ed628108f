// Sums in double over a plane of L interleaved lanes (L = 1: a plain row), as eight
// independent partial sums in all, so that the adds overlap: as one chain each add waited
// for the one before (LayerNormalization's rows, InstanceNormalization's planes).
#pragma once
#include <cstdint>

namespace tessera {

// Per lane l < L, the sum over s < n of x[s * L + l], or (kSquares) of
// (x[s * L + l] - mean[l])^2.
template <int L, bool kSquares>
void laneSums(const float* x, int64_t n, const double (&mean)[L], double (&out)[L]) {
  constexpr int P = 8 / L;  // partial sums a lane
  double part[P][L] = {};
  int64_t s = 0;
  for (; s + P <= n; s += P)
    for (int p = 0; p < P; ++p)
      for (int l = 0; l < L; ++l) {
        const double v = x[(s + p) * L + l] - mean[l];
        part[p][l] += kSquares ? v * v : v;
      }
  for (int p = 0; s < n; ++s, ++p)
    for (int l = 0; l < L; ++l) {
      const double v = x[s * L + l] - mean[l];
      part[p][l] += kSquares ? v * v : v;
    }
  for (int l = 0; l < L; ++l) {
    out[l] = 0;
    for (int p = 0; p < P; ++p) out[l] += part[p][l];
  }
}

}  // namespace tessera
