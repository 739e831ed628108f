// Helpers shared by the data-movement executions (Concat, Split, Transpose, Slice...):
// the element type macro for the reshape.cl kernels, and a strided-gather kernel setup.
#pragma once
#include <vector>

#include "backends/opencl/OpenClExecution.hpp"

namespace tessera {

// -DT=<unsigned type of the element size>, or empty when the size is not 1, 2, 4 or 8.
std::string elementTypeName(DataType t);

// Per-dimension gather description (rank <= 8): output dims, and for each the input start,
// step and input stride.
struct StridedGather {
  std::vector<int64_t> dims, starts, steps, strides;
};
cl_int8 toInt8(const std::vector<int64_t>& v);
// Element strides of a row-major shape.
std::vector<int64_t> rowMajorStrides(const Shape& s);

}  // namespace tessera

namespace tessera {

// Runs reshape.cl's gather_strided for a description fixed at creation (plain layouts).
class OpenClStridedGather final : public OpenClExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  OpenClStridedGather(Backend* b, StridedGather g) : OpenClExecution(b), gather_(std::move(g)) {}
  Status onResize(const Tensors& inputs, const Tensors& outputs) override;

 private:
  StridedGather gather_;
};

// Copies the input's bytes unchanged (Reshape, Flatten, Squeeze, Unsqueeze, Identity-like);
// nothing where the Session gave the output its input's buffer (Backend::onShareBuffer).
class OpenClByteCopy final : public OpenClExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  using OpenClExecution::OpenClExecution;
  bool outputIsInputBytes() const override { return true; }
  Status onExecute(const Tensors& inputs, const Tensors& outputs) override;
};

}  // namespace tessera
