// CPU MelWeightMatrix (semantics: ops/MelWeightMatrix.hpp). The bin edges depend on the
// sample rate and edge frequencies, which are read when the op runs (into a vector sized at
// resize); the triangles are written straight into the zeroed output.
#include <algorithm>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "ops/MelWeightMatrix.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuMelWeightMatrix final : public Execution {
 public:
  CpuMelWeightMatrix(Backend* b, const Node& node) : Execution(b), node_(node) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    TESSERA_RETURN_IF_ERROR(resolveMelWeightMatrix(node_, inputs[0], inputs[1], &mels_, &length_));
    edges_.assign(static_cast<size_t>(mels_ + 2), 0);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    TESSERA_RETURN_IF_ERROR(melBinEdges(node_, length_, *inputs[2], *inputs[3], *inputs[4], &edges_));
    Tensor& y = *outputs[0];
    const int64_t rows = y.dim(0);
    dispatchNumeric(y.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* out = y.data<T>();
      std::fill(out, out + y.elementCount(), T(0));
      auto set = [&](int64_t row, int64_t m, double v) {
        if (row >= 0 && row < rows) out[row * mels_ + m] = static_cast<T>(v);
      };
      for (int64_t m = 0; m < mels_; ++m) {
        const int64_t low = edges_[m], center = edges_[m + 1], high = edges_[m + 2];
        if (center == low) {
          set(center, m, 1.0);
        } else {
          for (int64_t j = low; j <= center; ++j)
            set(j, m, static_cast<double>(j - low) / static_cast<double>(center - low));
        }
        for (int64_t j = center; j < high; ++j)
          set(j, m, static_cast<double>(high - j) / static_cast<double>(high - center));
      }
    });
    return Status::ok();
  }

 private:
  Node node_;
  int64_t mels_ = 0, length_ = 0;
  std::vector<int64_t> edges_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  MelWeightMatrixParams p;
  if (!MelWeightMatrixParams::parse(node, &p).isOk() || inputs.size() != 5 || outputs.empty()) return nullptr;
  for (const Tensor* t : inputs)
    if (!t) return nullptr;
  const DataType dt = outputs[0]->dtype();
  if (dt == DataType::kBool || !dispatchNumeric(dt, [](auto) {})) return nullptr;
  return std::make_unique<CpuMelWeightMatrix>(b, node);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, MelWeightMatrix, create);

}  // namespace tessera
