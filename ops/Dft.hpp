// DFT (opset 17; opset 20's axis input is read too) and the geometry every backend follows.
//
// The input is [batch, s1..sk, C], C = 1 (real) or 2 (complex as re, im). The transform runs
// along `axis` (a signal dim: 1..k, or -k-1..-2 counting from the back, -1 being the complex
// dim), default 1 (opset 20: -2). The optional scalar dft_length input L (default: that
// dim's extent n) zero-pads (L > n) or truncates (L < n) the signal. inverse = 1 computes
// the inverse transform, divided by L. onesided = 1 keeps bins [0, L/2] (L/2 + 1 of them);
// the other half of a real input's spectrum is their mirror conjugate. The output is the
// input's shape with that dim replaced by the bin count and C = 2, in the input's dtype.
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct DftParams {
  bool inverse = false;
  bool onesided = false;
  bool axisFromInput = false;  // opset 20: the axis is input 2
  int64_t axis = 1;

  static Status parse(const Node& node, DftParams* out);
};

// The transform as [outer, n, inner, C] in and [outer, bins, inner, 2] out.
struct DftGeometry {
  int64_t outer = 1, inner = 1;
  int64_t signal = 0;    // n: the input's extent along the axis
  int64_t length = 0;    // L: the transform length
  int64_t bins = 0;      // the output's extent along the axis
  int64_t channels = 1;  // C
  Shape output;
};

// Checks the input's shape and reads dft_length (and opset 20's axis); both must be
// constant when planned (constantIntInput asks the Session for their values).
Status resolveDft(const Node& node, const DftParams& p, const Shape& input,
                  const Tensor* dftLength, const Tensor* axisInput, DftGeometry* out);

// The L twiddles exp(sign * 2*pi*i * m / L) as (re, im) pairs, m = 0..L-1, sign -1 forward
// and +1 inverse, computed in double: the GPU kernels' direct sums index them by (k * j) mod L,
// so no angle grows with L.
std::vector<float> dftTwiddles(int64_t length, bool inverse);

}  // namespace tessera
