// CPU Expand: a strided copy where broadcast dimensions have source stride 0.
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/StridedCopy.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuExpand final : public CpuStridedCopy {
 public:
  explicit CpuExpand(Backend* b) : CpuStridedCopy(b) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Shape& in = inputs[0]->shape();
    const Shape& out = outputs[0]->shape();
    const std::vector<int64_t> strides = rowMajorStrides(in);
    const size_t lead = out.size() - in.size();  // input dims align to the right
    view_ = StridedView();
    view_.extents = out;
    view_.strides.assign(out.size(), 0);
    for (size_t d = 0; d < in.size(); ++d)
      view_.strides[lead + d] = in[d] == 1 ? 0 : strides[d];
    view_.simplify();
    return Status::ok();
  }
};

std::unique_ptr<Execution> create(Backend* b, const Node&, const Tensors& inputs,
                                  const Tensors&) {
  if (!dispatchBySize(dataTypeSize(inputs[0]->dtype()), [](auto) {})) return nullptr;
  return std::make_unique<CpuExpand>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Expand, create);

}  // namespace tessera
