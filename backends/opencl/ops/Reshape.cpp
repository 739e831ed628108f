// OpenCL Reshape, Flatten, Squeeze, Unsqueeze: the same bytes in a new shape (plain layout).
// The output shape comes from shape inference, so nothing is re-parsed here.
#include "backends/opencl/Movement.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.empty() || !inputs[0] || outputs.size() != 1) return nullptr;
  if (inputs[0]->elementCount() != outputs[0]->elementCount()) return nullptr;
  if (inputs[0]->dtype() != outputs[0]->dtype() || elementTypeName(inputs[0]->dtype()).empty()) return nullptr;
  return makeExecution<OpenClByteCopy>(b, node);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Reshape, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Flatten, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Squeeze, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Unsqueeze, create);

}  // namespace tessera
