// How to split a product's output columns between tasks when its rows alone make too few, or
// too uneven, tasks for the threads: MobileNet's and ResNet's last planes (7x7: 49 rows, 4-5
// register tiles of the GEMM) have hundreds of output channels, and by rows alone one thread
// did most of the work, or all of it.
//
// The tasks are (row task r, column chunk c), numbered t = c * rowTasks + r and run by
// runClaimedTasks (ClaimedTasks.hpp), whose workers own contiguous shares of t: each share
// then mixes row tasks of every size.
#pragma once
#include <cstdint>
#include <vector>

namespace tessera {

struct ColumnSplit {
  int64_t width = 0;  // columns per chunk (the last may have fewer)
  int64_t chunks = 1;
};

// The split of N columns, in chunks of whole GEMM panels at least two panels wide (the last
// at least one), that
// finishes soonest on `threads` workers when row task r costs rowTiles[r] register tiles per
// column; a split is taken only for a 5% gain, as each chunk re-reads its rows (and an
// im2col conv gathers them again).
ColumnSplit splitColumns(int64_t N, const std::vector<int64_t>& rowTiles, int threads);

// Register tiles of the GEMM's packed path in `rows` rows (its tile height, rounded up).
int64_t gemmRowTiles(int64_t rows);

}  // namespace tessera
