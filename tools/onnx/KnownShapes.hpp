// The shapes a graph's values are known to have at import: graph inputs whose every dim is
// given, initializers, and what the registered shape functions give from those, node by node.
// A value missing from the map is not known (a dynamic dim, a shape that needs a value
// computed at run time, a node whose shape function fails here). For passes whose rewrite is
// exact only for some shapes (FuseConvAdd).
#pragma once
#include <map>
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"

namespace tessera {
namespace pass {

std::map<std::string, Shape> knownShapes(const Graph& g);

}  // namespace pass
}  // namespace tessera
