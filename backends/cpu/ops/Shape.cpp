// CPU Shape and Size: write the input's (logical) extents, or its element count. They never
// read the input's data, so they accept the input in any layout and cause no conversion.
#include "backends/cpu/CpuBackend.hpp"
#include "ops/Shape.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuShape final : public Execution {
 public:
  CpuShape(Backend* b, const ShapeParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&,
                     std::vector<Layout>* in, std::vector<Layout>* out) const override {
    *in = {available[0]};
    *out = {Layout::kNCHW};
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& x = *inputs[0];
    int64_t begin = 0, end = 0;
    params_.range(x.rank(), &begin, &end);
    int64_t* dst = outputs[0]->data<int64_t>();
    for (int64_t d = begin; d < end; ++d) dst[d - begin] = x.dim(static_cast<int>(d));
    return Status::ok();
  }

 private:
  ShapeParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  ShapeParams p;
  if (!ShapeParams::parse(node, &p).isOk() || inputs.empty() || !inputs[0]) return nullptr;
  return std::make_unique<CpuShape>(b, p);
}

class CpuSize final : public Execution {
 public:
  explicit CpuSize(Backend* b) : Execution(b) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&,
                     std::vector<Layout>* in, std::vector<Layout>* out) const override {
    *in = {available[0]};
    *out = {Layout::kNCHW};
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    outputs[0]->data<int64_t>()[0] = inputs[0]->elementCount();
    return Status::ok();
  }
};

std::unique_ptr<Execution> createSize(Backend* b, const Node&, const Tensors& inputs, const Tensors&) {
  if (inputs.empty() || !inputs[0]) return nullptr;
  return std::make_unique<CpuSize>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Shape, create);
TESSERA_REGISTER_EXECUTION(kCPU, Size, createSize);

}  // namespace tessera
