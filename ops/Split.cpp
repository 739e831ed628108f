#include "ops/Split.hpp"

#include <algorithm>
#include <string>

#include "ops/ConstantIntInput.hpp"

namespace tessera {

Status SplitParams::parse(const Node& node, SplitParams* out) {
  SplitParams p;
  p.axis = node.attrs.getInt("axis", 0);
  if (node.opset < 13) p.split = node.attrs.getInts("split");
  p.numOutputs = node.attrs.getInt("num_outputs", 0);
  *out = p;
  return Status::ok();
}

Status resolveSplitSizes(const Node& node, const SplitParams& p, const Shape& input,
                         const Tensor* splitInput, size_t outputCount, int64_t* axis,
                         std::vector<int64_t>* sizes) {
  if (!normalizeAxis(p.axis, static_cast<int64_t>(input.size()), axis))
    return Status::invalid(node.label() + ": axis " + std::to_string(p.axis) +
                           " is out of range for an input of shape " + shapeToString(input));
  const int64_t dim = input[*axis];
  std::vector<int64_t> split = p.split;
  if (node.opset >= 13 && splitInput)
    TESSERA_RETURN_IF_ERROR(constantIntInput(node, splitInput, "split", &split));
  if (!split.empty()) {
    if (split.size() != outputCount)
      return Status::invalid(node.label() + ": 'split' has " + std::to_string(split.size()) +
                             " sizes but the node has " + std::to_string(outputCount) +
                             " outputs");
    int64_t sum = 0;
    for (int64_t s : split) {
      if (s < 0) return Status::invalid(node.label() + ": 'split' has a negative size");
      if (!checkedAdd(sum, s, &sum)) return Status::invalid(node.label() + ": 'split' sizes overflow");
    }
    if (sum != dim)
      return Status::invalid(node.label() + ": 'split' sizes add up to " + std::to_string(sum) +
                             " but the axis has extent " + std::to_string(dim));
    *sizes = split;
    return Status::ok();
  }
  if (outputCount == 0) return Status::invalid(node.label() + ": has no outputs");
  const int64_t parts = p.numOutputs > 0 ? p.numOutputs : static_cast<int64_t>(outputCount);
  if (p.numOutputs > 0) {
    if (p.numOutputs != static_cast<int64_t>(outputCount))
      return Status::invalid(node.label() + ": num_outputs is " + std::to_string(p.numOutputs) + " but the node has " +
                             std::to_string(outputCount) + " outputs");
    // Opset 18: equal parts of ceil(dim / n), the last one smaller.
    const int64_t chunk = (dim + parts - 1) / parts;
    sizes->clear();
    for (int64_t i = 0; i < parts; ++i)
      sizes->push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
    return Status::ok();
  }
  if (dim % parts != 0)
    return Status::invalid(node.label() + ": cannot split an axis of extent " +
                           std::to_string(dim) + " into " + std::to_string(parts) +
                           " equal parts");
  sizes->assign(static_cast<size_t>(parts), dim / parts);
  return Status::ok();
}

}  // namespace tessera
