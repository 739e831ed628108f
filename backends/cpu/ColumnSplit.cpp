#include "backends/cpu/ColumnSplit.hpp"

#include <algorithm>

#include "backends/cpu/Gemm.hpp"

namespace tessera {
namespace {

// The busiest worker's cost when tasks t = c * rowTasks + r are shared as runClaimedTasks
// shares them (worker s owns [T s / threads, T (s + 1) / threads)).
int64_t busiest(int64_t N, const std::vector<int64_t>& rowTiles, int threads, int64_t width, int64_t chunks) {
  const int64_t rowTasks = static_cast<int64_t>(rowTiles.size()), tasks = rowTasks * chunks;
  const int shares = static_cast<int>(std::min<int64_t>(threads, tasks));
  int64_t worst = 0;
  for (int s = 0; s < shares; ++s) {
    int64_t cost = 0;
    for (int64_t t = tasks * s / shares; t < tasks * (s + 1) / shares; ++t) {
      const int64_t c = t / rowTasks, cols = std::min(width, N - c * width);
      cost += rowTiles[t % rowTasks] * cols;
    }
    worst = std::max(worst, cost);
  }
  return worst;
}

}  // namespace

ColumnSplit splitColumns(int64_t N, const std::vector<int64_t>& rowTiles, int threads) {
  ColumnSplit best{N, 1};
  if (threads <= 1 || rowTiles.empty() || N <= 0) return best;
  const int64_t panel = gemmPanelWidth();
  int64_t bestCost = busiest(N, rowTiles, threads, N, 1);
  for (int64_t c = 2; c <= 4 * threads; ++c) {
    const int64_t width = ((N + c - 1) / c + panel - 1) / panel * panel;
    if (width < 2 * panel) break;  // narrower shares run the GEMM's slower narrow kernels
    const int64_t chunks = (N + width - 1) / width;
    if (chunks == best.chunks || N - (chunks - 1) * width < panel) continue;  // a last chunk of a panel at least
    const int64_t cost = busiest(N, rowTiles, threads, width, chunks);
    if (cost < bestCost * 0.95) {
      best = {width, chunks};
      bestCost = cost;
    }
  }
  return best;
}

int64_t gemmRowTiles(int64_t rows) {
  const int64_t mr = gemmTileRows();
  return (rows + mr - 1) / mr;
}

}  // namespace tessera
