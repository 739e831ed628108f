// Div on a GPU backend rounds to nearest, bit for bit as the CPU divides: GLSL's and OpenCL
// C's `/` may be off by 2.5 ulp (NVIDIA's is), which moved one value of ONNX's
// dynamicquantizelinear_expanded across Round's halfway point on an H200. Quotients over a
// wide range of exponents, on NC4HW4 and plain tensors, a broadcast divisor, and the special
// values (zeros of both signs, infinities, NaN) against the CPU with no tolerance. On a
// driver that divides exactly (lavapipe, PoCL) this passes with or without the correction
// step; on one that does not, it fails without it.
#pragma once
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "support/GpuMatchesCpu.hpp"

namespace tessera {
namespace test {

// Signed values with exponents spread over [2^-40, 2^40], `specials` of them special.
inline Tensor wideRangeTensor(const Shape& s, uint32_t seed, bool specials) {
  Tensor t = Tensor::hostAllocate(s, DataType::kF32);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mantissa(1.f, 2.f), exponent(-40.f, 40.f);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {0.f, -0.f, inf, -inf, std::nanf(""), 1.f, -3.f};
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.elementCount(); ++i) {
    p[i] = mantissa(rng) * std::exp2(std::round(exponent(rng))) * (rng() % 2 ? 1.f : -1.f);
    if (specials && i % 97 == 13) p[i] = special[(i / 97) % special.size()];
  }
  return t;
}

inline void expectDivisionRoundsLikeCpu(BackendType gpu) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 5, 33, 31}, {2, 5, 33, 31}},  // NC4HW4 (5 channels: a padded block)
      {{100003}, {100003}},              // plain
      {{3, 7, 9, 11}, {1, 7, 1, 1}},     // a per-channel divisor
  };
  uint32_t seed = 70;
  for (const auto& s : shapes) {
    const Tensor a = wideRangeTensor(s.first, seed++, true), b = wideRangeTensor(s.second, seed++, true);
    expectGpuMatchesCpu(gpu, "Div", {a, b}, {}, 1, {}, 17, 0.0, 0.0,
                        "Div " + shapeToString(s.first) + " / " + shapeToString(s.second));
  }
}

}  // namespace test
}  // namespace tessera
