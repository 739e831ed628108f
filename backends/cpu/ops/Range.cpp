// CPU Range: out[i] = start + i * delta (numpy.arange's formula, which ONNX's test data
// follows), for f32 f64 and every integer type.
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "ops/Range.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuRange final : public Execution {
 public:
  using Execution::Execution;

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    int64_t count = 0;
    TESSERA_RETURN_IF_ERROR(rangeElementCount(*inputs[0], *inputs[1], *inputs[2], &count));
    Tensor& y = *outputs[0];
    if (count != y.elementCount()) {
      return Status::invalid("Range: start/limit/delta give " + std::to_string(count) +
                             " elements but the output was planned for " +
                             std::to_string(y.elementCount()));
    }
    dispatchNumeric(y.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>) {
        const T start = *inputs[0]->data<T>();
        const T delta = *inputs[2]->data<T>();
        T* dst = y.data<T>();
        for (int64_t i = 0; i < count; ++i) dst[i] = static_cast<T>(start + T(i) * delta);
      }
    });
    return Status::ok();
  }
};

std::unique_ptr<Execution> create(Backend* b, const Node&, const Tensors& inputs,
                                  const Tensors&) {
  if (inputs.size() != 3) return nullptr;
  for (const Tensor* t : inputs) {
    if (!t || t->dtype() != inputs[0]->dtype()) return nullptr;
  }
  const DataType t = inputs[0]->dtype();
  if (t == DataType::kBool || !(isFloat(t) || isInteger(t)) || t == DataType::kF16 ||
      t == DataType::kBF16) {
    return nullptr;
  }
  return std::make_unique<CpuRange>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Range, create);

}  // namespace tessera
