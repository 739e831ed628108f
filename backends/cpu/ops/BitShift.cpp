// CPU BitShift (semantics: ops/BitShift.hpp) on u8, u16, u32 and u64 with numpy broadcasting.
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/BitShift.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

template <typename T>
inline T shiftLeft(T x, T n) {
  return static_cast<uint64_t>(n) < sizeof(T) * 8 ? static_cast<T>(x << n) : T(0);
}
template <typename T>
inline T shiftRight(T x, T n) {
  return static_cast<uint64_t>(n) < sizeof(T) * 8 ? static_cast<T>(x >> n) : T(0);
}

class CpuBitShift final : public Execution {
 public:
  CpuBitShift(Backend* b, const BitShiftParams& p) : Execution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    if (!plan_.init({inputs[0]->shape(), inputs[1]->shape()}) || plan_.outputShape() != outputs[0]->shape())
      return Status::internal("cannot broadcast " + inputs[0]->describe() + " with " + inputs[1]->describe());
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    dispatchNumeric(inputs[0]->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
        const T* x = inputs[0]->data<T>();
        const T* n = inputs[1]->data<T>();
        T* y = outputs[0]->data<T>();
        if (params_.left) runBinaryPlan(cpuPool(*this), plan_, x, n, y, shiftLeft<T>);
        else runBinaryPlan(cpuPool(*this), plan_, x, n, y, shiftRight<T>);
      }
    });
    return Status::ok();
  }

 private:
  BitShiftParams params_;
  BroadcastPlan plan_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  BitShiftParams p;
  if (!BitShiftParams::parse(node, &p).isOk() || inputs.size() != 2 || !inputs[0] || !inputs[1]) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (t != inputs[1]->dtype()) return nullptr;
  if (t != DataType::kU8 && t != DataType::kU16 && t != DataType::kU32 && t != DataType::kU64) return nullptr;
  return std::make_unique<CpuBitShift>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, BitShift, create);

}  // namespace tessera
