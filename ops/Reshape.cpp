#include "ops/Reshape.hpp"

#include <string>

namespace tessera {

Status resolveReshape(const Node& node, const ReshapeParams& p, const Shape& input,
                      const std::vector<int64_t>& requested, Shape* out) {
  Shape s(requested.size());
  int inferred = -1;
  int64_t known = 1;
  bool hasZero = false;
  for (size_t i = 0; i < requested.size(); ++i) {
    const int64_t v = requested[i];
    if (v == -1) {
      if (inferred >= 0)
        return Status::invalid(node.label() + ": the requested shape has more than one -1");
      inferred = static_cast<int>(i);
      continue;
    }
    if (v < -1)
      return Status::invalid(node.label() + ": the requested shape has a negative extent " +
                             std::to_string(v));
    if (v == 0 && !p.allowZero) {
      if (i >= input.size())
        return Status::invalid(node.label() + ": requested extent 0 at position " +
                               std::to_string(i) + " copies an input dimension that " +
                               shapeToString(input) + " does not have");
      s[i] = input[i];
    } else {
      s[i] = v;
      hasZero = hasZero || v == 0;
    }
    if (!checkedMul(known, s[i], &known))
      return Status::invalid(node.label() + ": the requested shape " + shapeToString(requested) + " is too large");
  }
  const int64_t total = elementCount(input);
  if (inferred >= 0) {
    if (hasZero)
      return Status::invalid(node.label() + ": with allowzero=1 the shape cannot hold both 0 "
                             "and -1");
    if (known == 0 || total % known != 0)
      return Status::invalid(node.label() + ": cannot infer the -1 extent reshaping " +
                             shapeToString(input) + " to " + shapeToString(requested));
    s[inferred] = total / known;
  }
  if (elementCount(s) != total)
    return Status::invalid(node.label() + ": cannot reshape " + shapeToString(input) + " (" +
                           std::to_string(total) + " elements) to " + shapeToString(s));
  *out = std::move(s);
  return Status::ok();
}

}  // namespace tessera
