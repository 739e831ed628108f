// CPU EyeLike (semantics: ops/EyeLike.hpp) for every numeric dtype, bool, f16 and bf16: the
// output is zeroed (all-zero bytes are zero in every dtype), then the diagonal set.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/EyeLike.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuEyeLike final : public Execution {
 public:
  CpuEyeLike(Backend* b, const EyeLikeParams& p) : Execution(b), params_(p) {}

  Status onExecute(const Tensors&, const Tensors& outputs) override {
    Tensor& y = *outputs[0];
    const int64_t rows = y.dim(0), cols = y.dim(1);
    const int64_t k = std::clamp(params_.k, -rows, cols);  // no diagonal beyond; no overflow in -k
    std::memset(y.data(), 0, static_cast<size_t>(rows * cols) * dataTypeSize(y.dtype()));
    // Rows i with 0 <= i + k < cols hold a one.
    const int64_t first = std::max<int64_t>(0, -k), last = std::min<int64_t>(rows, cols - k);
    dispatchElement(y.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T one = Element<T>::store(1);
      T* out = y.data<T>();
      for (int64_t i = first; i < last; ++i) out[i * cols + i + k] = one;
    });
    return Status::ok();
  }

 private:
  EyeLikeParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  EyeLikeParams p;
  if (!EyeLikeParams::parse(node, &p).isOk() || inputs.empty() || !inputs[0]) return nullptr;
  if (outputs.empty() || !outputs[0] || !dispatchElement(outputs[0]->dtype(), [](auto) {})) return nullptr;
  return std::make_unique<CpuEyeLike>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, EyeLike, create);

}  // namespace tessera
