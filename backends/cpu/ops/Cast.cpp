// CPU Cast between every pair of f32 f64 f16 bf16 i8..i64 u8..u64 bool, converting as
// castValue (CastValue.hpp) says.
// Layout-agnostic like Unary: same shape and layout in and out, so it runs on the physical
// buffer (padding lanes converted and ignored).
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/CastValue.hpp"
#include "ops/Cast.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuCast final : public Execution {
 public:
  using Execution::Execution;

  void selectLayouts(const std::vector<Layout>& available, const Tensors&,
                     std::vector<Layout>* in, std::vector<Layout>* out) const override {
    *in = {available[0]};
    *out = {available[0]};
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    castElements(cpuPool(*this), *inputs[0], *outputs[0],
                 physicalElementCount(inputs[0]->shape(), inputs[0]->layout()));
    return Status::ok();
  }
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  CastParams p;
  if (!CastParams::parse(node, &p).isOk() || inputs.empty() || !inputs[0]) return nullptr;
  if (!castable(inputs[0]->dtype()) || !castable(p.to)) return nullptr;
  return std::make_unique<CpuCast>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Cast, create);

}  // namespace tessera
