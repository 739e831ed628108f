// Tracing a run and finding the op that differs. With SessionOptions::trace, a Session keeps a
// host copy of every node's outputs of each run (Session::trace); findDivergence compares two
// such traces (a GPU backend against the CPU, fp16 against fp32, Tessera against ONNX
// Runtime's intermediate outputs) and names the first node whose output is out of tolerance
// while all its inputs were within it: the op that introduced the difference.
// See docs/DEBUGGING.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/Tensor.hpp"

namespace tessera {

// One output of one node in a traced run, in execution order.
struct TracedOutput {
  std::string node;                 // its label, "Conv 'conv1'"
  std::string nodeName;             // the graph's node name (may be empty)
  std::string opType;
  std::string backend;              // "cpu", "vulkan", "opencl"
  bool folded = false;              // a constant computed while planning (on the host)
  std::string output;               // the value's name
  std::vector<std::string> inputs;  // the node's input value names ("" for an omitted one)
  Tensor value;                     // host copy, NCHW, in the graph's dtype
};

// How one traced output of a candidate run compares with the reference's value of that name.
struct TracedDifference {
  std::string output;
  bool compared = false;     // false: the reference lacks the value, or shape/dtype differ
  std::string note;          // why it was not compared
  bool within = true;        // every element within atol + rtol * |reference|
  int64_t outOfTolerance = 0;  // elements past it (NaN against a number counts)
  double maxAbsErr = 0;
  int64_t worst = -1;        // flat index of the element furthest out of tolerance
  double reference = 0, value = 0;  // at `worst`
};

struct Divergence {
  std::vector<TracedDifference> values;  // one per entry of the candidate trace, in order
  // Index (in `values` and the candidate trace) of the output that introduced the difference:
  // the first out of tolerance in execution order, so all its node's traced inputs were
  // within it; -1 when every compared value is within tolerance.
  int first = -1;
};

Divergence findDivergence(const std::vector<TracedOutput>& reference, const std::vector<TracedOutput>& candidate,
                          double rtol, double atol);

}  // namespace tessera
