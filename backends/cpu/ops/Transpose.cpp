// CPU Transpose: a strided copy through the permuted view of the input. Dimensions that
// stay contiguous are merged, so e.g. NCHW->NHWC copies runs of channels at once.
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/StridedCopy.hpp"
#include "ops/Transpose.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuTranspose final : public CpuStridedCopy {
 public:
  CpuTranspose(Backend* b, const Node& node, const TransposeParams& p)
      : CpuStridedCopy(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    std::vector<int64_t> perm;
    TESSERA_RETURN_IF_ERROR(params_.resolve(node_, inputs[0]->rank(), &perm));
    view_ = permutedView(inputs[0]->shape(), perm);
    view_.simplify();
    return Status::ok();
  }

 private:
  Node node_;
  TransposeParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  TransposeParams p;
  if (!TransposeParams::parse(node, &p).isOk()) return nullptr;
  if (!dispatchBySize(dataTypeSize(inputs[0]->dtype()), [](auto) {})) return nullptr;
  return std::make_unique<CpuTranspose>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Transpose, create);

}  // namespace tessera
