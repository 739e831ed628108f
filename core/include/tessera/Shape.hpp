// Shapes are plain vectors of extents; helpers for counts and printing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

using Shape = std::vector<int64_t>;

int64_t elementCount(const Shape& s);       // 1 for a scalar (rank 0)
std::string shapeToString(const Shape& s);  // "1x3x224x224", "scalar" for rank 0
// Multidirectional (numpy) broadcasting; false when the shapes are incompatible.
bool broadcastShapes(const Shape& a, const Shape& b, Shape* out);
// Normalises a possibly negative axis into [0, rank); false when out of range.
bool normalizeAxis(int64_t axis, int64_t rank, int64_t* out);

}  // namespace tessera
