// Checking user-given input tensors against a graph's declared inputs, and making random
// inputs for benchmarks.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {
namespace cli {

// "1x3x?x?" (-1 dims shown as '?'), or "unknown shape".
std::string declaredShape(const ValueInfo& v);

// Error naming the input and `source` when dtype, rank or a fixed dim disagree with `v`.
Status checkInputMatches(const ValueInfo& v, const Tensor& t, const std::string& source);

// "1x3x224x224" -> {1, 3, 224, 224}; "scalar" -> {}. False when malformed.
bool parseShape(const std::string& text, Shape* out);

// Deterministic random values: floats uniform in [-1, 1), integers 0, bools false (so that
// index-like inputs stay in range).
Tensor randomInput(DataType dtype, const Shape& shape, uint32_t seed);

// Every graph input: read from files[name] (.npy, checked against the declaration), else,
// with allowRandom, random (randomInput) of shapes[name] or of its declared fixed shape.
// Errors name the input and say how to give it; a name the graph lacks is kInvalidArgument.
Status gatherInputs(const Graph& graph, const std::map<std::string, std::string>& files,
                    const std::map<std::string, Shape>& shapes, bool allowRandom,
                    std::map<std::string, Tensor>* out);

}  // namespace cli
}  // namespace tessera
