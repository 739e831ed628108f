// OneHot cases shared by the GPU backends' tests (tests/{vulkan,opencl}/*OneHot.cpp), against
// the CPU, exactly: indices of rank 0 to 3 (odd extents, batch > 1) in f32 (with fractions,
// negatives, NaN, out-of-range and huge values), int32 and int64 (values past int32 too);
// depth 1, 7, 13 given as f32 or int64, constant or fed at run time (the Session specializes
// it); every axis, negative ones included; values fed at run time.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "support/GpuMatchesCpu.hpp"

namespace tessera {
namespace test {

// Indices in [-depth - 2, depth + 2) as f32 (fractions truncate), with NaN, +-inf and 1e20.
inline Tensor floatIndices(const Shape& s, int64_t depth, uint32_t seed) {
  Tensor t = randomTensor(s, seed, -static_cast<float>(depth) - 2.f, static_cast<float>(depth) + 2.f);
  float* p = t.data<float>();
  const float odd[] = {NAN, INFINITY, -INFINITY, 1e20f, -0.5f};
  for (int64_t i = 0; i < t.elementCount(); ++i)
    if (i % 7 == 3) p[i] = odd[(i / 7) % 5];
  return t;
}

// The same values as integers of `dt`, a few past int32 when it is int64.
inline Tensor intIndices(const Shape& s, int64_t depth, DataType dt, uint32_t seed) {
  const Tensor f = randomTensor(s, seed, -static_cast<float>(depth) - 2.f, static_cast<float>(depth) + 2.f);
  Tensor t = Tensor::hostAllocate(s, dt);
  for (int64_t i = 0; i < t.elementCount(); ++i) {
    int64_t v = static_cast<int64_t>(f.data<float>()[i]);
    if (dt == DataType::kI64 && i % 5 == 2) v += (i % 2 ? 1 : -1) * (int64_t(1) << 32);  // the low word in range
    if (dt == DataType::kI64) t.data<int64_t>()[i] = v;
    else t.data<int32_t>()[i] = static_cast<int32_t>(v);
  }
  return t;
}

// Every index rank, depth and axis; f32 indices with f32 values, int32 and int64 indices
// (depth constant) with `intValues` (f32 values, or, where the backend reads them, int32).
inline void oneHotEveryAxisAndIndexType(BackendType gpu, const Tensor& intValues) {
  uint32_t seed = 900;
  const Tensor values = tensorFrom({2}, {-0.25f, 3.5f});
  for (const Shape& s : std::vector<Shape>{{}, {5}, {2, 3}, {3, 1, 4}})
    for (int64_t depth : {1, 7, 13}) {
      const int64_t rank = static_cast<int64_t>(s.size());
      for (int64_t axis = -rank - 1; axis <= rank; ++axis) {
        Attributes a;
        a.setInt("axis", axis);
        const std::string what = shapeToString(s) + " depth " + std::to_string(depth) + " axis " + std::to_string(axis);
        expectGpuMatchesCpu(gpu, "OneHot", {floatIndices(s, depth, seed++), tensorFrom({}, {depth + 0.7f}), values}, a,
                            1, {}, 11, 0, 0, what + " f32 indices");
        for (DataType dt : {DataType::kI32, DataType::kI64})
          expectGpuMatchesCpu(gpu, "OneHot", {intIndices(s, depth, dt, seed++), tensorFromInts({1}, {depth}), intValues},
                              a, 1, {false, true}, 11, 0, 0, what + " " + dataTypeName(dt) + " indices");
      }
    }
}

}  // namespace test
}  // namespace tessera
