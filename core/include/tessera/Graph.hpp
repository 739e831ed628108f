// Graph: nodes in topological order, named values, constant initializers, graph inputs and
// outputs. Built by the ONNX importer or by hand with GraphBuilder. Thread safety: a built
// Graph is never modified by Tessera; any number of Sessions, in any threads, may share one
// (as std::shared_ptr<const Graph>).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/Attributes.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct Node {
  std::string name;
  std::string opType;    // "Conv"
  std::string domain;    // "" for the default ONNX domain
  int opset = 17;        // the opset version of this node's domain in its model
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;  // "" marks an omitted optional output
  Attributes attrs;

  // "Conv 'conv1'" for messages.
  std::string label() const;
  // If, Loop and Scan hold sub-graphs. The values of enclosing graphs they read are appended
  // to `inputs` by the importer (after the op's own inputs; see subgraphOuterInputs), so
  // planning sees every dependency.
  bool hasSubgraphs() const;
};

struct ValueInfo {
  std::string name;
  DataType dtype = DataType::kF32;
  std::vector<int64_t> dims;  // -1 marks a dimension that comes from the input given
  bool hasShape = false;      // false when the model gives no shape at all
};

class Graph {
 public:
  std::vector<Node> nodes;
  std::map<std::string, Tensor> initializers;  // host tensors, constant
  std::vector<ValueInfo> inputs;               // graph inputs that are not initializers
  std::vector<ValueInfo> outputs;
  std::string name;
  // A sub-graph's values read from enclosing graphs (ONNX outer scope), in first-use order.
  std::vector<std::string> outerScope;

  // Checks names: every node input is produced earlier, is a graph input or initializer.
  // Reorders nodes topologically if needed.
  Status validate();
};

// Builds graphs in C++: input → ops → output, values named automatically when not named.
// The outer-scope values a node's sub-graphs read, in the order the importer appends them to
// its inputs: each sub-graph attribute in name order, each one's outerScope, first use kept.
std::vector<std::string> subgraphOuterInputs(const Node& node);

class GraphBuilder {
 public:
  std::string input(const std::string& name, DataType dtype, std::vector<int64_t> dims);
  std::string constant(const std::string& name, Tensor value);
  // Adds a node; returns its output names (`numOutputs` generated names).
  std::vector<std::string> op(const std::string& opType, std::vector<std::string> inputs,
                              Attributes attrs = {}, int numOutputs = 1,
                              const std::string& nodeName = "");
  std::string op1(const std::string& opType, std::vector<std::string> inputs,
                  Attributes attrs = {}) {
    return op(opType, std::move(inputs), std::move(attrs), 1)[0];
  }
  void output(const std::string& name, DataType dtype = DataType::kF32);
  Status build(std::shared_ptr<Graph>* out);

 private:
  Graph g_;
  int counter_ = 0;
};

}  // namespace tessera
