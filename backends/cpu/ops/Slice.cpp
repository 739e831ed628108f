// CPU Slice: one strided copy; a negative step is a negative source stride.
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/Strides.hpp"
#include "ops/Slice.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuSlice final : public Execution {
 public:
  CpuSlice(Backend* b, const Node& node, const SliceParams& p)
      : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    // The window inputs are constant (shape inference needed them): resolve once here, or
    // on the first run if their host data is attached only then.
    prepared_ = false;
    for (size_t i = 1; i < inputs.size(); ++i)
      if (inputs[i] && !inputs[i]->data() && inputs[i]->elementCount() > 0) return Status::ok();
    return prepare(inputs, outputs);
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (!prepared_) TESSERA_RETURN_IF_ERROR(prepare(inputs, outputs));
    if (view_.count() == 0) return Status::ok();
    copyStrided(inputs[0]->data(), outputs[0]->data(), dataTypeSize(inputs[0]->dtype()), view_,
                cpuPool(*this));
    return Status::ok();
  }

 private:
  Status prepare(const Tensors& inputs, const Tensors& outputs) {
    std::vector<const Tensor*> windowInputs;
    for (size_t i = 1; i < 5; ++i) windowInputs.push_back(i < inputs.size() ? inputs[i] : nullptr);
    SliceWindow w;
    TESSERA_RETURN_IF_ERROR(resolveSlice(node_, params_, inputs[0]->shape(), windowInputs, &w));
    const std::vector<int64_t> srcStrides = rowMajorStrides(inputs[0]->shape());
    view_ = StridedView();
    for (size_t d = 0; d < srcStrides.size(); ++d) {
      view_.extents.push_back(w.counts[d]);
      view_.strides.push_back(srcStrides[d] * w.steps[d]);
      view_.offset += w.starts[d] * srcStrides[d];
    }
    if (view_.extents != outputs[0]->shape())
      return Status::internal(node_.label() + ": slice window " + shapeToString(view_.extents) +
                              " does not match output " + outputs[0]->describe());
    view_.simplify();
    prepared_ = true;
    return Status::ok();
  }

  Node node_;
  SliceParams params_;
  StridedView view_;
  bool prepared_ = false;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  SliceParams p;
  if (!SliceParams::parse(node, &p).isOk()) return nullptr;
  if (!dispatchBySize(dataTypeSize(inputs[0]->dtype()), [](auto) {})) return nullptr;
  return std::make_unique<CpuSlice>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Slice, create);

}  // namespace tessera
