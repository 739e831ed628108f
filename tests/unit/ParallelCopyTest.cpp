// copyBytes (core/src/ParallelCopy.hpp): the GPU backends' host copies split over a pool give
// exactly memcpy's bytes at every size, piece boundary and misalignment.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/src/ParallelCopy.hpp"
#include "tessera/ThreadPool.hpp"

namespace tessera {
namespace {

TEST(ParallelCopy, EqualsMemcpyAtEverySize) {
  ThreadPool pool(4);
  const size_t k = 256 << 10;
  for (size_t bytes : {size_t(0), size_t(1), k - 1, k, 2 * k, 2 * k + 1, 3 * k + 13, 7 * k + 63, 5000000 + size_t(7)}) {
    for (size_t offset : {size_t(0), size_t(3)}) {
      std::vector<uint8_t> src(bytes + offset), dst(bytes + offset + 1, 0xAB);
      for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 131 + (i >> 8));
      copyBytes(&pool, dst.data() + offset, src.data() + offset, bytes);
      for (size_t i = 0; i < bytes; ++i)
        ASSERT_EQ(dst[offset + i], src[offset + i]) << bytes << " bytes at offset " << offset << ": byte " << i;
      EXPECT_EQ(dst[offset + bytes], 0xAB) << "wrote past the end (" << bytes << " bytes)";
      if (offset) EXPECT_EQ(dst[0], 0xAB) << "wrote before the start";
    }
  }
  std::vector<uint8_t> a(3 * k, 1), b(3 * k, 0);
  copyBytes(nullptr, b.data(), a.data(), a.size());  // no pool: one thread
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace tessera
