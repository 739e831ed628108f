#include "ops/Reduce.hpp"

#include <map>

#include "ops/ConstantIntInput.hpp"

namespace tessera {

bool ReduceParams::kindOf(const std::string& opType, ReduceKind* kind) {
  static const std::map<std::string, ReduceKind> kinds = {
      {"ReduceSum", ReduceKind::kSum}, {"ReduceMean", ReduceKind::kMean},
      {"ReduceMax", ReduceKind::kMax}, {"ReduceMin", ReduceKind::kMin},
      {"ReduceProd", ReduceKind::kProd}, {"ReduceL1", ReduceKind::kL1},
      {"ReduceL2", ReduceKind::kL2}, {"ReduceSumSquare", ReduceKind::kSumSquare},
      {"ReduceLogSumExp", ReduceKind::kLogSumExp}, {"ReduceLogSum", ReduceKind::kLogSum},
  };
  auto it = kinds.find(opType);
  if (it == kinds.end()) return false;
  *kind = it->second;
  return true;
}

Status ReduceParams::parse(const Node& node, ReduceParams* out) {
  ReduceParams p;
  if (!kindOf(node.opType, &p.kind)) return Status::internal(node.label() + ": not a Reduce op");
  p.axesFromInput = node.opset >= (p.kind == ReduceKind::kSum ? 13 : 18);
  if (!p.axesFromInput) p.axes = node.attrs.getInts("axes");
  p.keepDims = node.attrs.getInt("keepdims", 1) != 0;
  p.noopWithEmptyAxes = node.attrs.getInt("noop_with_empty_axes", 0) != 0;
  *out = p;
  return Status::ok();
}

Status resolveReduceAxes(const Node& node, const ReduceParams& p, const Shape& input,
                         const Tensor* axesInput, std::vector<bool>* reduced, bool* identity) {
  std::vector<int64_t> axes = p.axes;
  if (p.axesFromInput && axesInput)
    TESSERA_RETURN_IF_ERROR(constantIntInput(node, axesInput, "axes", &axes));
  const int64_t rank = static_cast<int64_t>(input.size());
  *identity = axes.empty() && p.noopWithEmptyAxes;
  reduced->assign(static_cast<size_t>(rank), axes.empty() && !*identity);
  for (int64_t a : axes) {
    int64_t axis = 0;
    if (!normalizeAxis(a, rank, &axis))
      return Status::invalid(node.label() + ": axis " + std::to_string(a) +
                             " is out of range for an input of shape " + shapeToString(input));
    (*reduced)[axis] = true;
  }
  return Status::ok();
}

Shape reducedShape(const Shape& input, const std::vector<bool>& reduced, bool keepDims) {
  Shape out;
  for (size_t d = 0; d < input.size(); ++d) {
    if (!reduced[d]) out.push_back(input[d]);
    else if (keepDims) out.push_back(1);
  }
  return out;
}

}  // namespace tessera
