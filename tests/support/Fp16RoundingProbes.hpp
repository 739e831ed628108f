// Probes of fp16 rounding on a GPU backend in fp16 storage mode (issue 15). Every conversion
// to fp16 (uploads, kernel stores into buffers and images, weights where a backend packs them
// in fp16) must round to nearest with ties to even, whatever the driver would do on its own:
// an NVIDIA driver's image stores truncated most values, a bias toward zero that compounded
// through a detector.
// Each probe is one node whose fp32 result is known exactly on the host (products of values
// with few significant bits), so every stored element must be exactly that result's nearest
// fp16 value; a truncating path fails on about half the elements.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {

// The fp16 value nearest to f, ties to even: the tests' own reference (double arithmetic and
// nearbyint's default round-to-nearest-even), independent of the library's converters.
// Magnitudes past fp16's largest value (65504) are not probed.
inline float nearestHalf(float f) {
  int e = 0;
  std::frexp(static_cast<double>(f), &e);               // |f| in [2^(e-1), 2^e)
  const int lead = std::max(e - 1, -14);                 // subnormal halves share 2^-14's step
  const double step = std::ldexp(1.0, lead - 10);        // 10 fraction bits
  return static_cast<float>(std::nearbyint(f / step) * step);
}

// The same, truncated toward zero: what a truncating store gives (for the failure message).
inline float truncatedHalf(float f) {
  int e = 0;
  std::frexp(static_cast<double>(f), &e);
  const double step = std::ldexp(1.0, std::max(e - 1, -14) - 10);
  return static_cast<float>(std::trunc(f / step) * step);
}

// Values over fp16's whole normal and subnormal range, both signs, with more significant bits
// than fp16 keeps, and exact ties (1 + 2^-11 and the like, which must go to the even neighbour).
inline std::vector<float> roundingProbeValues(size_t n, uint32_t seed) {
  const Tensor r = randomTensor({static_cast<int64_t>(n)}, seed, 0.5f, 1.f);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    const int exponent = static_cast<int>(i % 40) - 25;  // 2^-26 .. 2^14
    v[i] = std::ldexp(r.data<float>()[i], exponent) * (i % 2 ? -1.f : 1.f);
    if (i % 7 == 3) v[i] = std::ldexp(1.f + std::ldexp(static_cast<float>(2 * (i % 5) + 1), -11), exponent % 12);
  }
  return v;
}

struct RoundingProbe {
  std::string path;            // which conversion it checks
  std::string op;
  std::vector<Tensor> inputs;
  std::vector<bool> constant;  // inputs that become initializers
  Attributes attrs;
  std::vector<float> exact;    // the node's fp32 result, element by element (NCHW order)
};

inline Tensor tensorOf(const Shape& s, const std::vector<float>& v) { return tensorFrom(s, v); }

// A 1x1 Conv of C channels whose weights are `scale` times the identity.
inline Tensor scaledIdentityWeights(int64_t C, float scale) {
  std::vector<float> w(static_cast<size_t>(C * C), 0.f);
  for (int64_t c = 0; c < C; ++c) w[static_cast<size_t>(c * C + c)] = scale;
  return tensorFrom({C, C, 1, 1}, w);
}

// The probes of NC4HW4 storage (images, or buffers past the image limit when `wide` > 0: a
// width that no image of the device can hold), and of plain storage buffers when `plain`.
inline std::vector<RoundingProbe> roundingProbes(bool plain, int64_t wide) {
  std::vector<RoundingProbe> probes;
  const float k = 1.375f;  // 4 significant bits: x * k is exact in fp32 for an fp16 x
  auto halves = [](std::vector<float> v) {
    for (float& f : v) f = nearestHalf(f);
    return v;
  };
  auto scaled = [k](std::vector<float> v) {
    for (float& f : v) f *= k;
    return v;
  };
  {  // host f32 -> fp16 image: the conv's identity weights pass the uploaded value through
    const std::vector<float> x = roundingProbeValues(2 * 5 * 3 * 7, 11);
    probes.push_back({"upload into an NC4HW4 tensor", "Conv", {tensorOf({2, 5, 3, 7}, x), scaledIdentityWeights(5, 1.f)},
                      {false, true}, {}, x});
  }
  {  // a kernel's fp32 result stored into an fp16 image
    const std::vector<float> x = halves(roundingProbeValues(2 * 5 * 3 * 7, 12));
    probes.push_back({"a Conv's store into an NC4HW4 tensor", "Conv",
                      {tensorOf({2, 5, 3, 7}, x), scaledIdentityWeights(5, k)}, {false, true}, {}, scaled(x)});
  }
  for (bool constantWeights : {true, false}) {  // weights, kept fp32 or rounded when packed, then the store
    const std::vector<float> w = roundingProbeValues(7, constantWeights ? 13 : 14);
    std::vector<float> exact;
    for (float v : w)
      for (int p = 0; p < 3 * 5; ++p) exact.push_back(v);  // y[m] = 1 * w[m] at every pixel
    probes.push_back({constantWeights ? "constant Conv weights" : "Conv weights computed on the device", "Conv",
                      {tensorFrom({1, 1, 3, 5}, std::vector<float>(15, 1.f)), tensorOf({7, 1, 1, 1}, w)},
                      {false, constantWeights}, {}, exact});
  }
  if (wide > 0) {  // NC4HW4 as fp16 buffers: the kernels' buffer variant stores
    const std::vector<float> x = halves(roundingProbeValues(3 * wide, 15));
    probes.push_back({"a Conv's store into an NC4HW4 tensor past the image limit", "Conv",
                      {tensorOf({1, 3, 1, wide}, x), scaledIdentityWeights(3, k)}, {false, true}, {}, scaled(x)});
  }
  if (plain) {
    const std::vector<float> x = roundingProbeValues(3 * 5 * 7, 16);
    std::vector<float> neg(x);
    for (float& f : neg) f = -f;
    probes.push_back({"upload into a plain tensor", "Neg", {tensorOf({3, 5, 7}, x)}, {false}, {}, neg});
    const std::vector<float> h = halves(roundingProbeValues(3 * 5 * 7, 17));
    probes.push_back({"an elementwise store into a plain tensor", "Mul",
                      {tensorOf({3, 5, 7}, h), tensorFrom({1}, {k})}, {false, true}, {}, scaled(h)});
  }
  return probes;
}

// Runs `p` on `backend` in fp16 mode: the node must run there, and every element must be the
// nearest fp16 value of the exact result.
inline void expectRoundsToNearestEven(const RoundingProbe& p, BackendType backend) {
  OpRun r = runOp(p.op, p.inputs, p.attrs, 1, backend, p.constant, 17, Precision::kFP16);
  ASSERT_TRUE(r.status.isOk()) << p.path << ": " << r.status.message();
  for (const auto& n : r.report.nodes) ASSERT_EQ(n.backend, backend) << p.path << ": the node left the GPU backend";
  const Tensor& y = r.outputs[0];
  ASSERT_EQ(static_cast<size_t>(y.elementCount()), p.exact.size()) << p.path;
  size_t wrong = 0, truncated = 0, first = p.exact.size();
  for (size_t i = 0; i < p.exact.size(); ++i) {
    const float got = y.data<float>()[i], want = nearestHalf(p.exact[i]);
    if (got == want) continue;
    if (first == p.exact.size()) first = i;
    ++wrong;
    if (got == truncatedHalf(p.exact[i])) ++truncated;
  }
  std::ostringstream firstWrong;
  if (wrong)
    firstWrong << "; first at " << first << ": exact " << std::setprecision(9) << p.exact[first] << ", nearest "
               << nearestHalf(p.exact[first]) << ", got " << y.data<float>()[first];
  EXPECT_EQ(wrong, 0u) << p.path << ": " << wrong << " of " << p.exact.size()
                       << " elements are not the nearest fp16 value (" << truncated << " truncated toward zero)"
                       << firstWrong.str();
}

// The reference itself, on values worked out by hand.
inline void expectNearestHalfReference() {
  EXPECT_EQ(nearestHalf(1.37f), 1.3701171875f);                      // 1402.88 steps of 2^-10
  EXPECT_EQ(truncatedHalf(1.37f), 1.369140625f);                     // 1402 steps
  EXPECT_EQ(nearestHalf(1.f + std::ldexp(1.f, -11)), 1.f);           // a tie: to the even 1024
  EXPECT_EQ(nearestHalf(1.f + 3 * std::ldexp(1.f, -11)), 1.001953125f);  // tie: 1025.5 -> 1026
  EXPECT_EQ(nearestHalf(-2.f - std::ldexp(3.f, -10)), -2.00390625f);    // -(1025.5 steps of 2^-9) -> 1026
  EXPECT_EQ(nearestHalf(std::ldexp(3.f, -26)), std::ldexp(1.f, -24));  // subnormal: 0.75 steps -> 1
  EXPECT_EQ(nearestHalf(std::ldexp(1.f, -26)), 0.f);                   // 0.25 steps -> 0
  EXPECT_EQ(nearestHalf(std::ldexp(5.f, -25)), std::ldexp(2.f, -24));  // 2.5 steps: tie -> 2
  EXPECT_EQ(nearestHalf(65504.f), 65504.f);
}

}  // namespace test
}  // namespace tessera
