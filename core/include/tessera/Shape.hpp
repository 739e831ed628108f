// Shapes are plain vectors of extents; helpers for counts and printing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

using Shape = std::vector<int64_t>;

int64_t elementCount(const Shape& s);       // 1 for a scalar (rank 0); saturates at INT64_MAX
std::string shapeToString(const Shape& s);  // "1x3x224x224", "scalar" for rank 0
// Checked size arithmetic for values a model supplies (dims, attributes, shape tensors):
// false when the result overflows int64, so a shape function reports an error instead of
// wrapping around (or dividing by a wrapped zero).
bool checkedMul(int64_t a, int64_t b, int64_t* out);
bool checkedAdd(int64_t a, int64_t b, int64_t* out);
// The element count; false when a dim is negative or the count overflows.
bool checkedElementCount(const Shape& s, int64_t* out);
// Multidirectional (numpy) broadcasting; false when the shapes are incompatible.
bool broadcastShapes(const Shape& a, const Shape& b, Shape* out);
// Normalises a possibly negative axis into [0, rank); false when out of range.
bool normalizeAxis(int64_t axis, int64_t rank, int64_t* out);

}  // namespace tessera
