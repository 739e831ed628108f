// CPU DepthToSpace and SpaceToDepth: both are a reshape to 6D, a transpose and a reshape
// back (as the ONNX spec defines them), i.e. one strided copy through a permuted view.
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/StridedCopy.hpp"
#include "ops/DepthToSpace.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuBlockShuffle final : public CpuStridedCopy {
 public:
  CpuBlockShuffle(Backend* b, const DepthToSpaceParams& p, bool toSpace)
      : CpuStridedCopy(b), params_(p), toSpace_(toSpace) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    const int64_t n = inputs[0]->dim(0), c = inputs[0]->dim(1);
    const int64_t h = inputs[0]->dim(2), w = inputs[0]->dim(3), b = params_.blockSize;
    if (toSpace_ && !params_.crd) {
      // DCR: [N, b, b, C', H, W] -> [N, C', H, b, W, b]
      view_ = permutedView({n, b, b, c / (b * b), h, w}, {0, 3, 4, 1, 5, 2});
    } else if (toSpace_) {
      // CRD: [N, C', b, b, H, W] -> [N, C', H, b, W, b]
      view_ = permutedView({n, c / (b * b), b, b, h, w}, {0, 1, 4, 2, 5, 3});
    } else {
      // [N, C, H', b, W', b] -> [N, b, b, C, H', W']
      view_ = permutedView({n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4});
    }
    view_.simplify();
    return Status::ok();
  }

 private:
  DepthToSpaceParams params_;
  bool toSpace_;
};

std::unique_ptr<Execution> createDepthToSpace(Backend* b, const Node& node, const Tensors& inputs,
                                              const Tensors&) {
  DepthToSpaceParams p;
  if (!DepthToSpaceParams::parse(node, &p).isOk()) return nullptr;
  if (!dispatchBySize(dataTypeSize(inputs[0]->dtype()), [](auto) {})) return nullptr;
  return std::make_unique<CpuBlockShuffle>(b, p, true);
}

std::unique_ptr<Execution> createSpaceToDepth(Backend* b, const Node& node, const Tensors& inputs,
                                              const Tensors&) {
  DepthToSpaceParams p;
  if (!DepthToSpaceParams::parse(node, &p).isOk()) return nullptr;
  p.crd = false;
  if (!dispatchBySize(dataTypeSize(inputs[0]->dtype()), [](auto) {})) return nullptr;
  return std::make_unique<CpuBlockShuffle>(b, p, false);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, DepthToSpace, createDepthToSpace);
TESSERA_REGISTER_EXECUTION(kCPU, SpaceToDepth, createSpaceToDepth);

}  // namespace tessera
