// MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool: attributes and output geometry.
#pragma once
#include <cstdint>

#include "ops/Window.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"

namespace tessera {

enum class PoolKind { kMax, kAverage, kGlobalMax, kGlobalAverage };

struct PoolParams {
  PoolKind kind = PoolKind::kMax;
  WindowParams window;
  bool countIncludePad = false;  // AveragePool: divide by the window size including pads
  int64_t storageOrder = 0;      // MaxPool Indices: 0 row major, 1 column major

  bool isMax() const { return kind == PoolKind::kMax || kind == PoolKind::kGlobalMax; }
  static Status parse(const Node& node, PoolParams* out);
};

// The window over x's spatial dimensions (x: [N, C, spatial...]); global pools cover all.
Status resolvePool(const PoolParams& p, const Shape& x, WindowGeometry* out);

}  // namespace tessera
