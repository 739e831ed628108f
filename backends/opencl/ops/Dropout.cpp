// OpenCL Dropout (inference): the output is the input. With a mask output it falls back.
#include "backends/opencl/Movement.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.empty() || !inputs[0] || outputs.size() != 1) return nullptr;
  if (inputs.size() > 2 && inputs[2]) return nullptr;  // training_mode given: leave it to the CPU
  if (inputs[0]->dtype() != outputs[0]->dtype() || elementTypeName(inputs[0]->dtype()).empty()) return nullptr;
  return makeExecution<OpenClByteCopy>(b, node);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Dropout, create);

}  // namespace tessera
