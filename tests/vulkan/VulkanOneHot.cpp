// Vulkan OneHot against the CPU: indices of rank 0 to 3 (odd extents, batch > 1) in f32 (with
// fractions, negatives, NaN, out-of-range and huge values), int32 and int64 (values past
// int32 too); depth 1, 7, 13 given as f32 or int64, constant or fed at run time (the Session
// specializes it); every axis, negative ones included; values fed at run time; fp32 and fp16
// storage.
#include <cmath>

#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

// Indices in [-depth - 2, depth + 2) as f32 (fractions truncate), with NaN, +-inf and 1e20.
Tensor floatIndices(const Shape& s, int64_t depth, uint32_t seed) {
  Tensor t = randomTensor(s, seed, -static_cast<float>(depth) - 2.f, static_cast<float>(depth) + 2.f);
  float* p = t.data<float>();
  const float odd[] = {NAN, INFINITY, -INFINITY, 1e20f, -0.5f};
  for (int64_t i = 0; i < t.elementCount(); ++i)
    if (i % 7 == 3) p[i] = odd[(i / 7) % 5];
  return t;
}

// The same values as integers of `dt`, a few past int32 when it is int64.
Tensor intIndices(const Shape& s, int64_t depth, DataType dt, uint32_t seed) {
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

const std::vector<Shape> kShapes = {{}, {5}, {2, 3}, {3, 1, 4}};

TEST(VulkanOneHot, EveryAxisAndIndexType) {
  TESSERA_REQUIRE_VULKAN();
  uint32_t seed = 900;
  const Tensor values = tensorFrom({2}, {-0.25f, 3.5f});
  for (const Shape& s : kShapes)
    for (int64_t depth : {1, 7, 13}) {
      const int64_t rank = static_cast<int64_t>(s.size());
      for (int64_t axis = -rank - 1; axis <= rank; ++axis) {
        Attributes a;
        a.setInt("axis", axis);
        SCOPED_TRACE(shapeToString(s) + " depth " + std::to_string(depth) + " axis " + std::to_string(axis));
        expectVulkanMatchesCpu("OneHot", {floatIndices(s, depth, seed++), tensorFrom({}, {depth + 0.7f}), values}, a,
                               1, {}, 11, 0, 0);
        for (DataType dt : {DataType::kI32, DataType::kI64})
          expectVulkanMatchesCpu("OneHot", {intIndices(s, depth, dt, seed++), tensorFromInts({1}, {depth}), values}, a,
                                 1, {false, true}, 11, 0, 0);
      }
    }
}

TEST(VulkanOneHot, Fp16Storage) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor values = tensorFrom({2}, {0.f, 1.f});
  Attributes a;
  a.setInt("axis", 1);
  expectVulkanFp16Close("OneHot", {floatIndices({3, 5}, 13, 950), tensorFrom({}, {13.f}), values}, a, {}, 0, 0);
  expectVulkanFp16Close("OneHot", {intIndices({3, 5}, 13, DataType::kI64, 951), tensorFrom({}, {13.f}), values}, a, {},
                        0, 0);
}

}  // namespace
}  // namespace test
}  // namespace tessera
