// OpenCL LayerNormalization (f32, plain buffers): Scale and B with the row's elements or a
// single value; the optional Mean and InvStdDev outputs are written when present. Kernel:
// shaders/opencl/row_norm.cl (backends/opencl/RowNorm.hpp).
#include "backends/opencl/RowNorm.hpp"
#include "ops/LayerNormalization.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class OpenClLayerNorm final : public OpenClRowNorm {
 public:
  OpenClLayerNorm(Backend* b, const LayerNormalizationParams& p, int64_t axis) : OpenClRowNorm(b), params_(p), axis_(axis) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor* x = inputs[0];
    const Tensor* scale = inputs[1];
    const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
    RowNormLayout l;
    l.length = 1;
    for (int d = static_cast<int>(axis_); d < x->rank(); ++d) l.length *= x->dim(d);
    l.rows = l.length == 0 ? 0 : x->elementCount() / l.length;
    l.scaleElement = scale->elementCount() == 1 ? 0 : 1;
    l.biasElement = bias && bias->elementCount() == 1 ? 0 : 1;
    return encodeRowNorm(l, params_.epsilon, x, scale, bias, outputs[0], outputs.size() > 1 ? outputs[1] : nullptr,
                         outputs.size() > 2 ? outputs[2] : nullptr);
  }

 private:
  LayerNormalizationParams params_;
  int64_t axis_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  for (const Tensor* t : inputs)
    if (t && t->dtype() != DataType::kF32) return nullptr;
  LayerNormalizationParams p;
  int64_t axis = 0;
  if (!LayerNormalizationParams::parse(node, &p).isOk() || !normalizeAxis(p.axis, inputs[0]->rank(), &axis))
    return nullptr;
  int64_t inner = 1;
  for (int d = static_cast<int>(axis); d < inputs[0]->rank(); ++d) inner *= inputs[0]->dim(d);
  for (size_t i = 1; i < inputs.size() && i < 3; ++i)  // full rows or a single value only
    if (inputs[i] && inputs[i]->elementCount() != inner && inputs[i]->elementCount() != 1) return nullptr;
  return makeExecution<OpenClLayerNorm>(b, node, p, axis);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, LayerNormalization, create);

}  // namespace tessera
