// spatialBands (backends/cpu/SpatialBands.hpp): the bands cover the image in order, none is
// empty, and every band but the first starts on a 64-byte line of every plane, so no two
// threads write one line; images that cannot be split so stay whole.
#include <gtest/gtest.h>

#include <cstdint>

#include "backends/cpu/SpatialBands.hpp"

namespace tessera {
namespace {

// Bytes from the start of the planes to band b's first pixel, in plane `plane`.
int64_t bandStartByte(const SpatialBands& s, int64_t rowPixels, int64_t pixelBytes, int64_t plane, int64_t b) {
  return (plane * s.rows * rowPixels + s.row(b) * rowPixels) * pixelBytes;
}

TEST(SpatialBands, EdgesStartALineInEveryPlane) {
  int split = 0;
  for (int threads : {2, 3, 4, 8})
    for (int64_t pixelBytes : {4, 16})
      for (int64_t rows = 1; rows <= 96; ++rows)
        for (int64_t rowPixels : {1, 3, 7, 14, 15, 16, 28, 40, 56, 80, 112, 160}) {
          const SpatialBands s = spatialBands(rows, rowPixels, pixelBytes, threads);
          ASSERT_TRUE(s.count == 1 || s.count == threads) << rows << "x" << rowPixels;
          ASSERT_EQ(s.row(0), 0);
          ASSERT_EQ(s.row(s.count), rows);
          if (s.count == 1) continue;
          ++split;
          for (int64_t b = 0; b < s.count; ++b) {
            EXPECT_GE(s.row(b + 1) - s.row(b), kMinBandRows / 2)
                << rows << "x" << rowPixels << ", " << threads << " threads: band " << b;
            for (int64_t plane : {0, 1, 5})
              EXPECT_EQ(bandStartByte(s, rowPixels, pixelBytes, plane, b) % static_cast<int64_t>(kCacheLine), 0)
                  << rows << "x" << rowPixels << ", " << pixelBytes << " bytes a pixel, " << threads
                  << " threads: band " << b << " of plane " << plane;
          }
        }
  EXPECT_GT(split, 1000);  // the check above ran on many split images, not only whole ones
}

TEST(SpatialBands, SplitsWhereLinesAllowIt) {
  // NC4HW4 fp32 (16 bytes a pixel) at 14x14 on 2 threads: too few rows a thread.
  EXPECT_EQ(spatialBands(14, 14, 16, 2).count, 1);
  // 56x56: split at row 28 (1568 pixels, 392 lines).
  EXPECT_EQ(spatialBands(56, 56, 16, 2).count, 2);
  EXPECT_EQ(spatialBands(56, 56, 16, 2).row(1), 28);
  // 30 rows of 40 (UltraFace's 40x30): the even edge, row 15, is 600 pixels in; a line is
  // 4 pixels, so rows move in steps of 1 (40 pixels a row already fill whole lines).
  EXPECT_EQ(spatialBands(30, 40, 16, 2).row(1), 15);
  // 30 rows of 15: 15 pixels a row, planes of 450 pixels, not a whole number of lines.
  EXPECT_EQ(spatialBands(30, 15, 16, 2).count, 1);
  // 20 rows of 10 pixels: rows in steps of 2 (20 pixels = 5 lines).
  const SpatialBands s = spatialBands(20, 10, 16, 2);
  EXPECT_EQ(s.step, 2);
  EXPECT_EQ(s.row(1) % 2, 0);
  // NCHW fp32 (4 bytes a pixel) of 28-pixel rows: 16 pixels a line, steps of 4 rows.
  EXPECT_EQ(spatialBands(64, 28, 4, 2).step, 4);
  // NCHW fp32 at 14x14: planes of 196 pixels do not fill lines.
  EXPECT_EQ(spatialBands(14, 14, 4, 2).count, 1);
  EXPECT_EQ(spatialBands(640, 640, 4, 1).count, 1);  // one thread: one band
}

}  // namespace
}  // namespace tessera
