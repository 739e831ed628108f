// CPU Dropout at inference: copies the input (in whatever layout it comes) and fills the
// optional mask with true (1 in the input's type before opset 10).
#include <cstring>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/Dropout.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuDropout final : public Execution {
 public:
  CpuDropout(Backend* b, size_t numOutputs) : Execution(b), numOutputs_(numOutputs) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&,
                     std::vector<Layout>* in, std::vector<Layout>* out) const override {
    *in = available;
    out->assign(numOutputs_, Layout::kNCHW);
    (*out)[0] = available[0];
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor* training = inputs.size() > 2 ? inputs[2] : nullptr;
    if (training && training->data() && *training->data<bool>()) {
      return Status::unsupported("Dropout: training mode is not supported");
    }
    const Tensor& x = *inputs[0];
    Tensor& y = *outputs[0];
    if (y.data() != x.data()) std::memcpy(y.data(), x.data(), x.byteSize());
    Tensor* mask = outputs.size() > 1 ? outputs[1] : nullptr;
    if (mask && mask->data()) {
      const int64_t n = mask->elementCount();
      dispatchElement(mask->dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T one = Element<T>::store(1);
        T* m = mask->data<T>();
        for (int64_t i = 0; i < n; ++i) m[i] = one;
      });
    }
    return Status::ok();
  }

 private:
  size_t numOutputs_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors& outputs) {
  DropoutParams p;
  if (!DropoutParams::parse(node, &p).isOk() || inputs.empty() || !inputs[0]) return nullptr;
  if (dataTypeSize(inputs[0]->dtype()) == 0) return nullptr;
  if (inputs.size() > 2 && inputs[2] && inputs[2]->dtype() != DataType::kBool) return nullptr;
  return std::make_unique<CpuDropout>(b, outputs.empty() ? 1 : outputs.size());
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Dropout, create);

}  // namespace tessera
