#include "ops/Slice.hpp"

#include <cstdint>
#include <string>

#include "ops/ConstantIntInput.hpp"

namespace tessera {

Status SliceParams::parse(const Node& node, SliceParams* out) {
  SliceParams p;
  if (node.opset < 10) {
    if (!node.attrs.has("starts") || !node.attrs.has("ends"))
      return Status::invalid(node.label() + ": attributes 'starts' and 'ends' are required");
    p.starts = node.attrs.getInts("starts");
    p.ends = node.attrs.getInts("ends");
    p.axes = node.attrs.getInts("axes");
  }
  *out = p;
  return Status::ok();
}

namespace {

int64_t clampTo(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

}  // namespace

Status resolveSlice(const Node& node, const SliceParams& p, const Shape& input,
                    const std::vector<const Tensor*>& sliceInputs, SliceWindow* out) {
  const int64_t rank = static_cast<int64_t>(input.size());
  std::vector<int64_t> starts = p.starts, ends = p.ends, axes = p.axes, steps;
  auto in = [&](size_t i) { return i < sliceInputs.size() ? sliceInputs[i] : nullptr; };
  if (node.opset >= 10) {
    TESSERA_RETURN_IF_ERROR(constantIntInput(node, in(0), "starts", &starts));
    TESSERA_RETURN_IF_ERROR(constantIntInput(node, in(1), "ends", &ends));
    if (in(2)) TESSERA_RETURN_IF_ERROR(constantIntInput(node, in(2), "axes", &axes));
    if (in(3)) TESSERA_RETURN_IF_ERROR(constantIntInput(node, in(3), "steps", &steps));
  }
  if (starts.size() != ends.size())
    return Status::invalid(node.label() + ": 'starts' has " + std::to_string(starts.size()) +
                           " values but 'ends' has " + std::to_string(ends.size()));
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return Status::invalid(node.label() + ": 'starts', 'ends', 'axes' and 'steps' must have "
                           "the same length");

  SliceWindow w;
  w.starts.assign(rank, 0);
  w.steps.assign(rank, 1);
  w.counts = input;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t axis = 0;
    if (!normalizeAxis(axes[i], rank, &axis))
      return Status::invalid(node.label() + ": axis " + std::to_string(axes[i]) +
                             " is out of range for an input of shape " + shapeToString(input));
    if (seen[axis])
      return Status::invalid(node.label() + ": axis " + std::to_string(axes[i]) + " is repeated");
    seen[axis] = true;
    const int64_t dim = input[axis];
    const int64_t step = steps[i];
    if (step == 0) return Status::invalid(node.label() + ": a step of 0 is not allowed");
    int64_t start = starts[i], end = ends[i];
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    int64_t count = 0;
    if (step > 0) {
      start = clampTo(start, 0, dim);
      end = clampTo(end, 0, dim);
      if (end > start) count = 1 + (end - start - 1) / step;  // no overflow for a huge step
    } else {
      // Walking backwards: start is the first element read, end is exclusive (-1 = before 0).
      start = clampTo(start, 0, dim - 1);
      end = clampTo(end, -1, dim - 1);
      if (start > end) count = step == INT64_MIN ? 1 : 1 + (start - end - 1) / -step;
    }
    w.starts[axis] = count > 0 ? start : 0;
    w.steps[axis] = step;
    w.counts[axis] = count;
  }
  *out = std::move(w);
  return Status::ok();
}

}  // namespace tessera
