// ArgMax / ArgMin cases shared by the GPU backends' tests (tests/vulkan/VulkanArgMinMax.cpp,
// tests/opencl/OpenClArgMinMax.cpp), each compared exactly with the CPU: every axis (negative
// too), keepdims both, select_last_index both, lines of 1 to over a million around the
// switch-over to a line per work-group (128), strided lines, values with many ties (so the
// first or last index decides, across the invocations of a group), NaNs.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {

// Runs `op` with `attrs` on x on the GPU backend and expects the CPU's indices exactly;
// `what` names the case.
using ArgCheck = std::function<void(const std::string& op, const Tensor& x, const Attributes& attrs,
                                    const std::string& what)>;

// Small integers in [0, levels): a line's extreme occurs many times; exact in fp16.
inline Tensor tiedTensor(const Shape& s, uint32_t seed, int levels) {
  Tensor t = randomTensor(s, seed, 0.f, static_cast<float>(levels));
  for (int64_t i = 0; i < t.elementCount(); ++i) t.data<float>()[i] = std::floor(t.data<float>()[i]);
  return t;
}

inline Attributes argAttrs(int64_t axis, int keepdims, int last) {
  Attributes a;
  a.setInt("axis", axis);
  a.setInt("keepdims", keepdims);
  a.setInt("select_last_index", last);
  return a;
}

// Both ops, both tie rules, both keepdims.
inline void expectArgs(const ArgCheck& check, const Tensor& x, int64_t axis) {
  for (const char* op : {"ArgMax", "ArgMin"})
    for (int last : {0, 1})
      for (int keep : {1, 0})
        check(op, x, argAttrs(axis, keep, last),
              std::string(op) + " " + shapeToString(x.shape()) + " axis " + std::to_string(axis) + " last " +
                  std::to_string(last) + " keepdims " + std::to_string(keep));
}

inline void argEveryAxisWithTies(const ArgCheck& check) {
  const Tensor x = tiedTensor({3, 5, 7, 9}, 600, 4);
  for (int64_t axis : {0, 1, 2, 3, -1, -2, -3, -4}) expectArgs(check, x, axis);
  expectArgs(check, randomTensor({2, 3, 5}, 601), 1);  // distinct values
  expectArgs(check, tiedTensor({13}, 602, 3), 0);      // rank 1: one output
}

inline void argLineLengths(const ArgCheck& check) {
  for (int64_t n : {1, 2, 63, 127, 128, 129, 1000}) {
    expectArgs(check, tiedTensor({3, n}, 610 + static_cast<uint32_t>(n), 5), -1);
    expectArgs(check, tiedTensor({2, n, 3}, 620 + static_cast<uint32_t>(n), 5), 1);  // strided lines
  }
  expectArgs(check, randomTensor({2, 1000}, 630), 1);
}

inline void argLineOverAMillion(const ArgCheck& check) {
  expectArgs(check, tiedTensor({2, 1048583}, 640, 50), 1);  // each extreme ~20000 times
  // One maximum near the end and one minimum near the start of a random line.
  Tensor x = randomTensor({1, 1048583}, 641);
  x.data<float>()[1048580] = 2.f;
  x.data<float>()[3] = -2.f;
  expectArgs(check, x, -1);
}

// The CPU's scan never replaces a NaN first element and never picks a later NaN.
inline void argNaNs(const ArgCheck& check) {
  const float nan = std::nanf("");
  for (int64_t n : {5, 300}) {
    Tensor x = tiedTensor({4, n}, 650 + static_cast<uint32_t>(n), 3);
    float* p = x.data<float>();
    p[0] = nan;                                          // line 0: NaN first
    p[n + 1] = nan;                                      // line 1: NaNs inside
    p[n + n / 2] = nan;
    for (int64_t k = 0; k < n; ++k) p[2 * n + k] = nan;  // line 2: all NaN
    expectArgs(check, x, 1);
  }
}

}  // namespace test
}  // namespace tessera
