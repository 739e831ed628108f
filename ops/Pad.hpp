// Pad: constant / reflect / edge padding, with pads (and the constant) as inputs from
// opset 11 and as attributes before. Negative pads crop.
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

enum class PadMode { kConstant, kReflect, kEdge };

struct PadParams {
  PadMode mode = PadMode::kConstant;
  bool padsFromInput = false;       // opset >= 11: input 1 'pads', input 2 'constant_value'
  std::vector<int64_t> padsAttribute;  // opset < 11
  float valueAttribute = 0.f;          // opset < 11

  static Status parse(const Node& node, PadParams* out);
};

// Begin/end pads per axis for x's rank (from the attribute or the 'pads' input, which then
// needs host data) and the output shape. Messages do not name the node.
Status resolvePads(const PadParams& p, const Shape& x, const Tensor* padsInput, std::vector<int64_t>* begins,
                   std::vector<int64_t>* ends, Shape* output);

// Source index along an axis of extent n for output index o with leading pad `begin`, or -1
// where the constant goes.
int64_t padSourceIndex(PadMode mode, int64_t o, int64_t begin, int64_t n);

}  // namespace tessera
