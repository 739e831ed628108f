// CPU HannWindow, HammingWindow, BlackmanWindow (semantics: ops/CosineWindow.hpp): the length is the
// output's, planned from the size input's value, so the input is not read again.
#include <cmath>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "ops/CosineWindow.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

constexpr double kPi = 3.14159265358979323846;

class CpuCosineWindow final : public Execution {
 public:
  CpuCosineWindow(Backend* b, const CosineWindowParams& p) : Execution(b), params_(p) {}

  Status onExecute(const Tensors&, const Tensors& outputs) override {
    Tensor& y = *outputs[0];
    const int64_t size = y.elementCount();
    const double N = static_cast<double>(params_.periodic ? size : size - 1);
    dispatchNumeric(y.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* dst = y.data<T>();
      for (int64_t n = 0; n < size; ++n) {
        const double angle = 2 * kPi * static_cast<double>(n) / N;
        const double w = params_.a0 - params_.a1 * std::cos(angle) + params_.a2 * std::cos(2 * angle);
        if constexpr (std::is_floating_point_v<T>) dst[n] = static_cast<T>(w);
        else dst[n] = std::isfinite(w) ? static_cast<T>(w) : T(0);
      }
    });
    return Status::ok();
  }

 private:
  CosineWindowParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors&, const Tensors& outputs) {
  CosineWindowParams p;
  if (!CosineWindowParams::parse(node, &p).isOk() || outputs.empty() || !outputs[0]) return nullptr;
  const DataType dt = outputs[0]->dtype();
  if (dt == DataType::kBool || !dispatchNumeric(dt, [](auto) {})) return nullptr;
  return std::make_unique<CpuCosineWindow>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, HannWindow, create);
TESSERA_REGISTER_EXECUTION(kCPU, HammingWindow, create);
TESSERA_REGISTER_EXECUTION(kCPU, BlackmanWindow, create);

}  // namespace tessera
