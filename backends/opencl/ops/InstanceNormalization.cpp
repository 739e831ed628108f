// OpenCL InstanceNormalization (f32, plain buffers): each (n, c) plane a row of row_norm.cl
// (backends/opencl/RowNorm.hpp) with its channel's scale and bias.
#include "backends/opencl/RowNorm.hpp"
#include "ops/InstanceNormalization.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class OpenClInstanceNorm final : public OpenClRowNorm {
 public:
  OpenClInstanceNorm(Backend* b, float eps) : OpenClRowNorm(b), epsilon_(eps) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor* x = inputs[0];
    RowNormLayout l;
    l.channels = x->dim(1);
    l.rows = x->dim(0) * l.channels;
    l.length = l.rows == 0 ? 0 : x->elementCount() / l.rows;
    l.scaleRow = l.biasRow = 1;
    return encodeRowNorm(l, epsilon_, x, inputs[1], inputs[2], outputs[0], nullptr, nullptr);
  }

 private:
  float epsilon_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() != 3) return nullptr;
  for (const Tensor* t : inputs)
    if (!t || t->dtype() != DataType::kF32) return nullptr;
  if (inputs[0]->rank() < 3 || inputs[1]->elementCount() != inputs[0]->dim(1) ||
      inputs[2]->elementCount() != inputs[0]->dim(1))
    return nullptr;
  InstanceNormalizationParams p;
  if (!InstanceNormalizationParams::parse(node, &p).isOk()) return nullptr;
  return makeExecution<OpenClInstanceNorm>(b, node, p.epsilon);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, InstanceNormalization, create);

}  // namespace tessera
