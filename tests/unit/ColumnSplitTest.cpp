// splitColumns (backends/cpu/ColumnSplit.hpp): a product whose rows make one task, or tasks
// of uneven size, is split by columns in whole GEMM panels; one whose rows already keep the
// threads even, or whose columns are too few for two wide chunks, stays whole.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "backends/cpu/ColumnSplit.hpp"
#include "backends/cpu/Gemm.hpp"

namespace tessera {
namespace {

TEST(ColumnSplit, OneRowTaskIsSplitBetweenTheThreads) {
  // A 7x7 plane's Winograd: 16 tiles, one task, 512 output channels.
  const ColumnSplit s = splitColumns(512, {2}, 2);
  EXPECT_EQ(s.chunks, 2);
  EXPECT_EQ(s.width, 256);
  const ColumnSplit four = splitColumns(512, {2}, 4);
  EXPECT_EQ(four.chunks, 4);
  EXPECT_EQ(four.width, 128);
}

TEST(ColumnSplit, UnevenRowTasksAreEvenedOut) {
  // 3 and 2 register tiles of rows: 3 x 256 on one thread whole; split, each thread gets
  // 3 x 128 + 2 x 128.
  const ColumnSplit s = splitColumns(256, {3, 2}, 2);
  EXPECT_EQ(s.chunks, 2);
  EXPECT_EQ(s.width % gemmPanelWidth(), 0);
}

TEST(ColumnSplit, EvenRowsOrNarrowProductsStayWhole) {
  EXPECT_EQ(splitColumns(512, std::vector<int64_t>(100, 8), 2).chunks, 1);
  EXPECT_EQ(splitColumns(512, {8, 8}, 2).chunks, 1);
  EXPECT_EQ(splitColumns(24, {2}, 2).chunks, 1);  // two chunks would be under two panels each
  EXPECT_EQ(splitColumns(512, {2}, 1).chunks, 1);
  const ColumnSplit whole = splitColumns(40, {1}, 2);  // 32 + 8: a last chunk under a panel
  EXPECT_EQ(whole.chunks, 1);
  EXPECT_EQ(whole.width, 40);
}

TEST(ColumnSplit, ChunksCoverTheColumns) {
  for (int64_t n : {33, 70, 100, 257, 1000})
    for (int threads : {2, 3, 8}) {
      const ColumnSplit s = splitColumns(n, {1}, threads);
      EXPECT_GE(s.width * s.chunks, n);
      EXPECT_LT(s.width * (s.chunks - 1), n);
      if (s.chunks > 1) EXPECT_EQ(s.width % gemmPanelWidth(), 0);
    }
}

}  // namespace
}  // namespace tessera
