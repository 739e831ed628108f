#include "tessera/CustomExecution.hpp"

namespace tessera {

void CustomExecution::selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                                    std::vector<Layout>* out) const {
  in->assign(available.size(), Layout::kNCHW);
  for (size_t i = 0; i < in->size() && i < inputLayouts_.size(); ++i) (*in)[i] = inputLayouts_[i];
  for (size_t i = 0; i < out->size(); ++i) (*out)[i] = i < outputLayouts_.size() ? outputLayouts_[i] : Layout::kNCHW;
}

bool CustomExecution::readsConstantOnHost(size_t input) const {
  for (size_t i : hostInputs_)
    if (i == input) return true;
  return false;
}

Status CustomExecution::onPrepare(const Tensors&, const Tensors&) { return Status::ok(); }

Status CustomExecution::onResize(const Tensors& inputs, const Tensors& outputs) {
  TESSERA_RETURN_IF_ERROR(beginPlan(inputs, outputs));
  const std::string kind = std::string("custom ") + backendTypeName(backend()->type()) + " kernels";
  for (const auto* layouts : {&inputLayouts_, &outputLayouts_})
    for (Layout l : *layouts)
      if (l != Layout::kNCHW && l != Layout::kNC4HW4)
        return Status::unsupported(kind + " take NCHW or NC4HW4 tensors, not " + layoutName(l));
  for (size_t i : hostInputs_)
    if (i < inputs.size() && inputs[i] && !inputs[i]->data())
      return Status::unsupported("input " + std::to_string(i) + " '" + inputs[i]->name() +
                                 "' must be a constant (an initializer): the kernel reads it on the host");
  if (!prepared_) {
    TESSERA_RETURN_IF_ERROR(onPrepare(inputs, outputs));
    prepared_ = true;
  }
  TESSERA_RETURN_IF_ERROR(onPlan(inputs, outputs));
  return endPlan(inputs, outputs);
}

}  // namespace tessera
