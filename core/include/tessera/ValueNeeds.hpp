// Values planning needs. A shape function (or the parameter parsing it calls) that needs the
// value of an input known only at run time (Reshape's target, an axis fed as a graph input)
// names that input with noteValueNeeded before it fails. The Session then plans again with
// the graph inputs that value is computed from, and only those, specialized on the run's
// values (docs/ARCHITECTURE.md). Inputs whose values planning does not need (data) are never
// specialized, so a node is folded at planning only when its data are constant.
// ops/ConstantIntInput.hpp's constantIntInput notes for its callers.
#pragma once
#include <vector>

#include "tessera/Tensor.hpp"

namespace tessera {

void noteValueNeeded(const Tensor* input);

// For the Session: collects the notes made on this thread while it lives.
class ValueNeedsRecorder {
 public:
  explicit ValueNeedsRecorder(std::vector<const Tensor*>* into);
  ~ValueNeedsRecorder();
  ValueNeedsRecorder(const ValueNeedsRecorder&) = delete;
  ValueNeedsRecorder& operator=(const ValueNeedsRecorder&) = delete;

 private:
  std::vector<const Tensor*>* previous_;
};

}  // namespace tessera
