// CPU Tile: each dimension d of extent x*r is walked as (r, x) with strides (0, stride),
// which is exactly row-major order over the tiled output: one strided copy. The repeats
// are out/in extents, so the constant input need not be read again.
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/StridedCopy.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuTile final : public CpuStridedCopy {
 public:
  explicit CpuTile(Backend* b) : CpuStridedCopy(b) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Shape& in = inputs[0]->shape();
    const Shape& out = outputs[0]->shape();
    const std::vector<int64_t> strides = rowMajorStrides(in);
    view_ = StridedView();
    for (size_t d = 0; d < in.size(); ++d) {
      view_.extents.push_back(in[d] == 0 ? 0 : out[d] / in[d]);
      view_.strides.push_back(0);
      view_.extents.push_back(in[d]);
      view_.strides.push_back(strides[d]);
    }
    view_.simplify();
    return Status::ok();
  }
};

std::unique_ptr<Execution> create(Backend* b, const Node&, const Tensors& inputs,
                                  const Tensors&) {
  if (!dispatchBySize(dataTypeSize(inputs[0]->dtype()), [](auto) {})) return nullptr;
  return std::make_unique<CpuTile>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Tile, create);

}  // namespace tessera
