// Elementwise arithmetic with numpy broadcasting: Add Sub Mul Div Pow, and the variadic
// Max Min Sum Mean (1..N inputs, folded left to right).
#pragma once
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

enum class BinaryKind { kAdd, kSub, kMul, kDiv, kPow, kMax, kMin, kSum, kMean };

struct BinaryParams {
  BinaryKind kind = BinaryKind::kAdd;

  // False when `opType` is not one of these ops.
  static bool kindOf(const std::string& opType, BinaryKind* kind);
  static bool isVariadic(BinaryKind k) {
    return k == BinaryKind::kMax || k == BinaryKind::kMin || k == BinaryKind::kSum ||
           k == BinaryKind::kMean;
  }
  // Rejects the pre-opset-7 `broadcast`/`axis` form, which predates numpy broadcasting.
  static Status parse(const Node& node, BinaryParams* out);
};

}  // namespace tessera
