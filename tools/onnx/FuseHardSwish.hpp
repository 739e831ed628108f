// Graph pass: x * Clip(x + 3, 0, 6) / 6 — HardSwish as exporters without the op write it
// (PP-OCRv4: Add, Clip, Mul, Div) — becomes one HardSwish node: one pass over memory instead
// of four on every backend.
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Matches Add(x, 3) -> Clip(0, 6) -> Mul(x, .) -> Div(., 6) or Mul(., 1/6), operands in
// either order, constants as f32 initializers (Clip bounds as inputs or, before opset 11,
// attributes), every intermediate read only by the next node. Returns the number fused.
int fuseHardSwish(Graph* graph);

}  // namespace tessera
