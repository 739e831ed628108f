// Ops that are one strided copy of their input (Transpose, Expand, Tile, DepthToSpace,
// SpaceToDepth): the op's onResize builds the view of the input in output order, this base
// runs it. Any element size of 1, 2, 4 or 8 bytes.
#pragma once
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/Strides.hpp"

namespace tessera {

class CpuStridedCopy : public Execution {
 public:
  using Execution::Execution;

  // The input is read in onExecute alone (the view holds offsets, not pointers).
  bool readsInputInPlace(size_t input) const override { return input == 0; }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (outputs[0]->elementCount() == 0) return Status::ok();
    copyStrided(inputs[0]->data(), outputs[0]->data(), dataTypeSize(inputs[0]->dtype()), view_,
                cpuPool(*this));
    return Status::ok();
  }

 protected:
  StridedView view_;
};

}  // namespace tessera
