// The shapes a graph's values are known to have at import: graph inputs whose every dim is
// given, initializers, and what the registered shape functions give from those, node by node,
// with the values of small outputs (at most 1024 elements) of nodes whose inputs' values are
// known computed on the CPU backend, as planning folds them (a Reshape's target computed from
// its input's Shape). A value missing from the map is not known (a dynamic dim, a shape that
// needs a value computed at run time, a node whose shape function fails here). For passes whose rewrite is
// exact only for some shapes (FuseConvAdd).
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"

namespace tessera {
namespace pass {

// probe > 0: the graph inputs' dynamic dims take the values probe, probe + step, probe +
// 2 step, ... in order (each its own value, so that a transposed H and W differ; with step 6
// all alike modulo 2 and 3). The shapes then hold for inputs of those sizes; a pass compares
// values under two probes to see shapes that agree for any size, e.g. a residual block's two
// operands, or under probes and steps that are multiples of 64 for sizes a network's strides
// divide (a feature pyramid's levels).
std::map<std::string, Shape> knownShapes(const Graph& g, int64_t probe = 0, int64_t step = 6);

}  // namespace pass
}  // namespace tessera
