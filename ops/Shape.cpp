#include "ops/Shape.hpp"

#include <algorithm>

namespace tessera {

Status ShapeParams::parse(const Node& node, ShapeParams* out) {
  ShapeParams p;
  p.start = node.attrs.getInt("start", 0);
  p.end = node.attrs.getInt("end", INT64_MAX);
  *out = p;
  return Status::ok();
}

void ShapeParams::range(int64_t rank, int64_t* begin, int64_t* endOut) const {
  auto clampAxis = [rank](int64_t a) {
    if (a < 0) a += rank;
    return std::min(std::max<int64_t>(a, 0), rank);
  };
  *begin = clampAxis(start);
  *endOut = std::max(*begin, clampAxis(end));
}

}  // namespace tessera
