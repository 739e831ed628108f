// Naive references shared by the quantization op tests: rounding and saturation written
// out step by step (never the library's helpers), and 8-bit/int32 tensors by value.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {

// Nearest integer, ties to even, spelled out.
inline double naiveRoundHalfEven(double v) {
  const double f = std::floor(v);
  const double d = v - f;
  if (d < 0.5) return f;
  if (d > 0.5) return f + 1;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1;
}

// v clamped into the range of 8-bit `dt` (int8 or uint8).
inline int64_t naiveSaturate(double v, DataType dt) {
  const double lo = dt == DataType::kI8 ? -128 : 0, hi = dt == DataType::kI8 ? 127 : 255;
  return static_cast<int64_t>(v < lo ? lo : v > hi ? hi : v);
}

// An integer tensor of dtype dt (int8, uint8, int32) with element i = value(i).
template <typename F>
Tensor intTensor(const Shape& shape, DataType dt, F value) {
  Tensor t = Tensor::hostAllocate(shape, dt);
  for (int64_t i = 0; i < t.elementCount(); ++i) {
    const int64_t v = value(i);
    if (dt == DataType::kI8) t.data<int8_t>()[i] = static_cast<int8_t>(v);
    else if (dt == DataType::kU8) t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
    else t.data<int32_t>()[i] = static_cast<int32_t>(v);
  }
  return t;
}

inline int64_t intAt(const Tensor& t, int64_t i) {
  if (t.dtype() == DataType::kI8) return t.data<int8_t>()[i];
  if (t.dtype() == DataType::kU8) return t.data<uint8_t>()[i];
  return t.data<int32_t>()[i];
}

// A value spread over 8-bit `dt`'s range (for data and zero points).
inline int64_t spread8(int64_t i, DataType dt, int64_t salt = 0) {
  const int64_t v = (i * 37 + salt * 11 + 5) % 256;
  return dt == DataType::kI8 ? v - 128 : v;
}

// Exact comparison of integer tensors, naming the first element that differs.
inline void expectSameInts(const Tensor& actual, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(shapeToString(actual.shape()), shapeToString(expected.shape())) << what;
  ASSERT_EQ(std::string(dataTypeName(actual.dtype())), dataTypeName(expected.dtype())) << what;
  for (int64_t i = 0; i < expected.elementCount(); ++i)
    ASSERT_EQ(intAt(actual, i), intAt(expected, i)) << what << " element " << i;
}

inline void expectFailsNaming(const OpRun& r, const std::string& op, const std::string& cause) {
  ASSERT_FALSE(r.status.isOk()) << op << ": expected a failure about " << cause;
  EXPECT_NE(r.status.message().find(op + " 'op'"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find(cause), std::string::npos) << r.status.message();
}

}  // namespace test
}  // namespace tessera
