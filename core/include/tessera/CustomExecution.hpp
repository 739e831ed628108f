// The part every custom GPU kernel's execution shares (tessera/OpenClKernel.hpp,
// tessera/VulkanKernel.hpp): the layouts it declares, the constant inputs it reads on the
// host, and the cycle the Session drives — per plan, onResize runs onPrepare once, then
// onPlan. Derive from a backend's class (OpenClCustomExecution, VulkanCustomExecution), not
// from this one.
#pragma once
#include <vector>

#include "tessera/Backend.hpp"

namespace tessera {

class CustomExecution : public Execution {
 public:
  void selectLayouts(const std::vector<Layout>& available, const Tensors& inputs,
                     std::vector<Layout>* inputLayouts, std::vector<Layout>* outputLayouts) const override;
  bool readsConstantOnHost(size_t input) const override;
  // Checks the declarations, then onPrepare (the first time), then onPlan.
  Status onResize(const Tensors& inputs, const Tensors& outputs) final;

 protected:
  explicit CustomExecution(Backend* backend) : Execution(backend) {}

  // Declarations, made in the constructor. The layout of each input and output: kNCHW (the
  // default) or kNC4HW4 (see the backend's header for how each is stored). The Session
  // converts where the neighbours differ.
  void setInputLayouts(std::vector<Layout> layouts) { inputLayouts_ = std::move(layouts); }
  void setOutputLayouts(std::vector<Layout> layouts) { outputLayouts_ = std::move(layouts); }
  // Constant inputs (initializers, weights) the kernel reads on the host in onPrepare, e.g.
  // to pack and upload them itself: the Session uploads nothing for them, and
  // onPrepare/onPlan see them as host tensors. A non-constant value there is an error.
  void setHostConstantInputs(std::vector<size_t> inputs) { hostInputs_ = std::move(inputs); }

  // Once per execution, before onPlan (so once per plan, not per run): build kernels,
  // upload constants.
  virtual Status onPrepare(const Tensors& inputs, const Tensors& outputs);
  // Shapes known: add the kernels to run, with their arguments and sizes.
  virtual Status onPlan(const Tensors& inputs, const Tensors& outputs) = 0;

 private:
  // For the backend's class: its checks and dropping the last plan's kernels, then, after
  // onPlan, checking or recording what onPlan added.
  virtual Status beginPlan(const Tensors& inputs, const Tensors& outputs) = 0;
  virtual Status endPlan(const Tensors& inputs, const Tensors& outputs) = 0;

  std::vector<Layout> inputLayouts_, outputLayouts_;
  std::vector<size_t> hostInputs_;
  bool prepared_ = false;
};

}  // namespace tessera
