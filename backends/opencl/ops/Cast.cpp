// OpenCL Cast from f32 to f32 (the only float type OpenCL kernels take): the bytes do not
// change, so it is a buffer copy (OpenClByteCopy, shared with Reshape and Dropout).
#include "backends/opencl/Movement.hpp"
#include "ops/Cast.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  CastParams p;
  if (inputs.empty() || !inputs[0] || outputs.size() != 1 || !CastParams::parse(node, &p).isOk()) return nullptr;
  if (p.to != DataType::kF32 || inputs[0]->dtype() != DataType::kF32 || outputs[0]->dtype() != DataType::kF32)
    return nullptr;
  return makeExecution<OpenClByteCopy>(b, node);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Cast, create);

}  // namespace tessera
