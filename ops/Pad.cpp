#include "ops/Pad.hpp"
#include "tessera/ValueNeeds.hpp"

#include <algorithm>

namespace tessera {

Status PadParams::parse(const Node& node, PadParams* out) {
  PadParams p;
  const std::string mode = node.attrs.getString("mode", "constant");
  if (mode == "constant") p.mode = PadMode::kConstant;
  else if (mode == "reflect") p.mode = PadMode::kReflect;
  else if (mode == "edge") p.mode = PadMode::kEdge;
  else return Status::unsupported(node.label() + ": pad mode '" + mode + "' is not supported");
  p.padsFromInput = node.opset >= 11;
  if (!p.padsFromInput) {
    p.padsAttribute = node.attrs.getInts("pads");
    p.valueAttribute = node.attrs.getFloat("value", 0.f);
    if (!node.attrs.has("pads")) return Status::invalid(node.label() + ": attribute pads is required");
  } else if (node.inputs.size() > 3 && !node.inputs[3].empty()) {
    return Status::unsupported(node.label() + ": the opset-18 input 'axes' is not supported");
  }
  *out = p;
  return Status::ok();
}

Status resolvePads(const PadParams& p, const Shape& x, const Tensor* padsInput, std::vector<int64_t>* begins,
                   std::vector<int64_t>* ends, Shape* output) {
  const size_t r = x.size();
  std::vector<int64_t> pads;
  if (p.padsFromInput) {
    if (!padsInput) return Status::invalid("input 'pads' is required");
    if (!padsInput->data()) {
      noteValueNeeded(padsInput);
      return Status::invalid("the values of input 'pads' are not known when planning: it must be a constant "
                             "(or computed from constants)");
    }
    if (padsInput->dtype() != DataType::kI64)
      return Status::invalid(std::string("input 'pads' must be int64 but is ") + dataTypeName(padsInput->dtype()));
    pads.assign(padsInput->data<int64_t>(), padsInput->data<int64_t>() + padsInput->elementCount());
  } else {
    pads = p.padsAttribute;
  }
  if (pads.size() != 2 * r)
    return Status::invalid("pads has " + std::to_string(pads.size()) + " values but the input " + shapeToString(x) +
                           " needs " + std::to_string(2 * r));
  begins->assign(pads.begin(), pads.begin() + r);
  ends->assign(pads.begin() + r, pads.end());
  output->resize(r);
  for (size_t d = 0; d < r; ++d) {
    if (!checkedAdd(x[d], (*begins)[d], &(*output)[d]) || !checkedAdd((*output)[d], (*ends)[d], &(*output)[d]))
      return Status::invalid("pads " + std::to_string((*begins)[d]) + ", " + std::to_string((*ends)[d]) +
                             " overflow dimension " + std::to_string(d) + " of " + shapeToString(x));
    if ((*output)[d] < 0)
      return Status::invalid("pads crop more than the extent of dimension " + std::to_string(d) + " of " +
                             shapeToString(x));
    if (p.mode != PadMode::kConstant && x[d] == 0 && (*output)[d] > 0)
      return Status::invalid("reflect and edge padding need a non-empty input in every padded dimension");
  }
  return Status::ok();
}

int64_t padSourceIndex(PadMode mode, int64_t o, int64_t begin, int64_t n) {
  int64_t v = o - begin;
  if (v >= 0 && v < n) return v;
  switch (mode) {
    case PadMode::kConstant: return -1;
    case PadMode::kEdge: return std::min<int64_t>(std::max<int64_t>(v, 0), n - 1);
    case PadMode::kReflect:
      if (n == 1) return 0;
      // Mirror without repeating the edge, as often as needed (numpy's 'reflect').
      while (v < 0 || v >= n) v = v < 0 ? -v : 2 * (n - 1) - v;
      return v;
  }
  return -1;
}

}  // namespace tessera
