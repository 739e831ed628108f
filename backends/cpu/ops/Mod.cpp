// CPU Mod (semantics: ops/Mod.hpp) on every integer dtype, f16, bf16, f32 and f64, with numpy
// broadcasting; 16-bit floats compute in f32 (fmod is exact, so rounding back loses nothing).
#include <cmath>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/Mod.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// The remainder with the dividend's sign (C's % and fmod).
template <typename C>
inline C truncatedMod(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::fmod(a, b);
  } else {
    if (b == 0) return C(0);  // numpy gives 0; C would trap
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return C(0);  // INT_MIN % -1 overflows in C; the remainder is 0
    }
    return static_cast<C>(a % b);
  }
}

// The remainder with the divisor's sign (Python's %), integers only.
template <typename C>
inline C flooredMod(C a, C b) {
  const C r = truncatedMod(a, b);
  if constexpr (std::is_signed_v<C>) {
    if (r != 0 && ((r < 0) != (b < 0))) return static_cast<C>(r + b);  // |r| < |b|: no overflow
  }
  return r;
}

class CpuMod final : public Execution {
 public:
  CpuMod(Backend* b, const ModParams& p) : Execution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    if (!plan_.init({inputs[0]->shape(), inputs[1]->shape()}) || plan_.outputShape() != outputs[0]->shape())
      return Status::internal("cannot broadcast " + inputs[0]->describe() + " with " + inputs[1]->describe());
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    dispatchElement(inputs[0]->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename Element<T>::Compute;
      if constexpr (!std::is_same_v<T, bool>) {
        const T* a = inputs[0]->data<T>();
        const T* b = inputs[1]->data<T>();
        T* y = outputs[0]->data<T>();
        if constexpr (std::is_floating_point_v<C>) {  // fmod = 1, checked by the creator
          runBinaryPlan(cpuPool(*this), plan_, a, b, y, [](T p, T q) {
            return Element<T>::store(truncatedMod<C>(Element<T>::load(p), Element<T>::load(q)));
          });
        } else if (params_.fmod) {
          runBinaryPlan(cpuPool(*this), plan_, a, b, y, [](T p, T q) { return truncatedMod<T>(p, q); });
        } else {
          runBinaryPlan(cpuPool(*this), plan_, a, b, y, [](T p, T q) { return flooredMod<T>(p, q); });
        }
      }
    });
    return Status::ok();
  }

 private:
  ModParams params_;
  BroadcastPlan plan_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  ModParams p;
  if (!ModParams::parse(node, &p).isOk() || inputs.size() != 2 || !inputs[0] || !inputs[1]) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (t != inputs[1]->dtype() || !(isInteger(t) || isFloat(t))) return nullptr;
  if (isFloat(t) && !p.fmod) return nullptr;
  return std::make_unique<CpuMod>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Mod, create);

}  // namespace tessera
