#include "tessera/Shape.hpp"

#include <cstdint>

namespace tessera {

int64_t elementCount(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d == 0) return 0;
    if (!checkedMul(n, d, &n)) n = INT64_MAX;
  }
  return n;
}

bool checkedMul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

bool checkedAdd(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

bool checkedElementCount(const Shape& s, int64_t* out) {
  int64_t n = 1;
  for (int64_t d : s)
    if (d < 0 || !checkedMul(n, d, &n)) return false;
  *out = n;
  return true;
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
