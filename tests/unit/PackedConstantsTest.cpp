// Packed weights (backends/cpu/PackedConstants.hpp) start on a 64-byte cache line, shared or
// not, whatever the heap did before: the CPU kernels read them in 64-byte vectors, and a
// buffer 16 bytes off a line split every load (a 1x1 conv ran at half speed). Constant
// sources are packed once and shared.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cpu/PackedConstants.hpp"

namespace tessera {
namespace {

bool onCacheLine(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

TEST(PackedConstants, PackedWeightsStartOnACacheLine) {
  PackedConstants cache;
  std::vector<std::unique_ptr<char[]>> clutter;  // odd-sized blocks between the packings
  for (size_t floats : {1, 3, 16, 17, 100, 4099}) {
    for (bool constant : {true, false}) {
      clutter.emplace_back(new char[floats * 4 + 20]);
      Tensor w = Tensor::hostAllocate({static_cast<int64_t>(floats)}, DataType::kF32);
      for (size_t i = 0; i < floats; ++i) w.data<float>()[i] = static_cast<float>(i);
      w.setConstant(constant);
      PackedWeights packed;
      packed.plan(cache, {&w}, "test" + std::to_string(floats), floats + 5, [&](float* dst) {
        for (size_t i = 0; i < floats; ++i) dst[i] = 2.f * w.data<float>()[i];
      });
      EXPECT_EQ(packed.shared(), constant);
      const float* p = packed.get();
      EXPECT_TRUE(onCacheLine(p)) << floats << " floats, " << (constant ? "shared" : "own") << " copy at " << p;
      EXPECT_EQ(p[floats - 1], 2.f * static_cast<float>(floats - 1));
      EXPECT_EQ(p[floats + 4], 0.f);  // zeroed past what pack wrote
    }
  }
  EXPECT_EQ(cache.packings(), 6u);  // the constant ones, once each
}

TEST(PackedConstants, AlignedFloatsStartOnACacheLine) {
  std::vector<std::unique_ptr<char[]>> clutter;
  for (size_t n = 0; n < 70; ++n) {
    clutter.emplace_back(new char[n * 3 + 1]);
    AlignedFloats v(n, 1.f);
    v.push_back(2.f);  // and after growing
    EXPECT_TRUE(onCacheLine(v.data())) << n;
  }
}

}  // namespace
}  // namespace tessera
