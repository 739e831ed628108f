#include "tessera/Backend.hpp"

namespace tessera {

void Execution::selectLayouts(const std::vector<Layout>& available, const Tensors& inputs,
                              std::vector<Layout>* inputLayouts,
                              std::vector<Layout>* outputLayouts) const {
  inputLayouts->assign(available.size(), Layout::kNCHW);
  for (auto& l : *outputLayouts) l = Layout::kNCHW;
}

WorkEstimate Execution::work(const Tensors& inputs, const Tensors& outputs) const {
  WorkEstimate w;
  for (const Tensor* t : inputs) if (t) w.bytes += static_cast<double>(t->byteSize());
  for (const Tensor* t : outputs) if (t) w.bytes += static_cast<double>(t->byteSize());
  return w;
}

namespace {

// A copy through the backend's immediate onCopyBuffer: right for host memory.
class ImmediateCopy final : public Execution {
 public:
  using Execution::Execution;
  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    return backend()->onCopyBuffer(inputs[0], outputs[0]);
  }
};

}  // namespace

std::unique_ptr<Execution> Backend::onCreateCopy(const Tensor*, Tensor*) {
  return std::make_unique<ImmediateCopy>(this);
}

}  // namespace tessera
