#include "tessera/Shape.hpp"

namespace tessera {

int64_t elementCount(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::string shapeToString(const Shape& s) {
  if (s.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += 'x';
    out += std::to_string(s[i]);
  }
  return out;
}

bool broadcastShapes(const Shape& a, const Shape& b, Shape* out) {
  const size_t rank = a.size() > b.size() ? a.size() : b.size();
  Shape r(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) r[i] = da;
    else if (da == 1) r[i] = db;
    else return false;
  }
  *out = std::move(r);
  return true;
}

bool normalizeAxis(int64_t axis, int64_t rank, int64_t* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

}  // namespace tessera
