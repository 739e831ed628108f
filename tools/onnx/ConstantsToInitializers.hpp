// Graph pass: Constant nodes become initializers of the same name, so the other passes
// (and the Session) see their values as constants directly. Constants that are graph
// outputs, and those Constant's parser rejects, stay nodes.
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Returns the number of Constant nodes turned into initializers.
int constantsToInitializers(Graph* graph);

}  // namespace tessera
