// CPU CastLike: Cast to input 1's dtype, with Cast's conversion (CastValue.hpp). Input 1's
// values are never read. Layout-agnostic like Cast: input 0 runs on its physical buffer.
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/CastValue.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuCastLike final : public Execution {
 public:
  using Execution::Execution;

  void selectLayouts(const std::vector<Layout>& available, const Tensors&,
                     std::vector<Layout>* in, std::vector<Layout>* out) const override {
    *in = available;  // target_type is only looked at for its dtype
    *out = {available[0]};
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    castElements(cpuPool(*this), *inputs[0], *outputs[0],
                 physicalElementCount(inputs[0]->shape(), inputs[0]->layout()));
    return Status::ok();
  }
};

std::unique_ptr<Execution> create(Backend* b, const Node&, const Tensors& inputs, const Tensors&) {
  if (inputs.size() != 2 || !inputs[0] || !inputs[1]) return nullptr;
  if (!castable(inputs[0]->dtype()) || !castable(inputs[1]->dtype())) return nullptr;
  return std::make_unique<CpuCastLike>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, CastLike, create);

}  // namespace tessera
