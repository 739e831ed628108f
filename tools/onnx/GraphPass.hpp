// Small helpers shared by the import-time graph passes (tools/onnx/Fold*, Fuse*,
// ConstantsToInitializers): who reads and who makes each value, constant lookups, and
// removing matched nodes.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tessera/Graph.hpp"

namespace tessera {
namespace pass {

// Number of node inputs (and graph outputs) reading each value.
std::map<std::string, int> consumerCounts(const Graph& g);
// Whether `value` is read exactly `times` times by the counts of consumerCounts. A pass that
// folds a value into its one reader asks for 1: a second reader, or a graph output, still
// needs the value itself.
bool readTimes(const std::map<std::string, int>& counts, const std::string& value, int times);
inline bool readOnce(const std::map<std::string, int>& counts, const std::string& value) {
  return readTimes(counts, value, 1);
}
// Value -> indices of the nodes reading it (a node reading it twice is listed twice).
std::map<std::string, std::vector<size_t>> readers(const Graph& g);
// The index of the one node reading `value` (read once in all, not a graph output), or -1.
long soleReader(const std::map<std::string, int>& counts, const std::map<std::string, std::vector<size_t>>& readers,
                const std::string& value);
// Value -> index of the node making it.
std::map<std::string, size_t> producers(const Graph& g);
// The f32 initializer `name` with host data, or nullptr.
const Tensor* f32Initializer(const Graph& g, const std::string& name);
// The single value of an f32 initializer with one element, or false.
bool scalarInitializer(const Graph& g, const std::string& name, float* value);
// A name no initializer has yet, from `base`.
std::string freshName(const Graph& g, const std::string& base);
// Adds an f32 constant under a fresh name and returns the name.
std::string addInitializer(Graph& g, const std::string& base, Tensor value);
// The f32 initializer `name` (of any shape) again as a 1-D constant under a fresh name.
std::string addFlattenedInitializer(Graph& g, const std::string& name);
// Whether `n` is the default-domain op `op` with `inputs` inputs and one output.
bool isOp(const Node& n, const char* op, size_t inputs);
// Whether an activation after `n` can become its fused activation (ops/FusedActivation.hpp):
// a default-domain Conv, ConvTranspose or MatMul with one output and no activation (or affine
// after one) yet.
bool takesActivation(const Node& n);
// Drops the nodes flagged in `removed`, then the initializers among `candidates` that no
// node reads any more.
void removeNodes(Graph& g, const std::vector<bool>& removed, const std::set<std::string>& candidates);

}  // namespace pass
}  // namespace tessera
