// The shapes a graph's values are known to have at import: graph inputs whose every dim is
// given, initializers, and what the registered shape functions give from those, node by node.
// A value missing from the map is not known (a dynamic dim, a shape that needs a value
// computed at run time, a node whose shape function fails here). For passes whose rewrite is
// exact only for some shapes (FuseConvAdd).
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"

namespace tessera {
namespace pass {

// probe > 0: every dynamic dim of the graph inputs takes that value (the shapes then hold for
// inputs of that size; a pass compares values under two probes to see shapes that agree for
// any size, e.g. a residual block's two operands).
std::map<std::string, Shape> knownShapes(const Graph& g, int64_t probe = 0);

}  // namespace pass
}  // namespace tessera
