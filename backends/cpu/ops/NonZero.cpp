// CPU NonZero: counts the non-zero elements, allocates the [rank, count] output, then writes
// each one's coordinates (row-major order, as numpy.nonzero). Runs alone in its graph stage.
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuNonZero final : public Execution {
 public:
  using Execution::Execution;

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& x = *inputs[0];
    const Shape& shape = x.shape();
    const int64_t n = x.elementCount();
    const int64_t rank = static_cast<int64_t>(shape.size());
    dispatchNumeric(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* v = x.data<T>();
      int64_t count = 0;
      for (int64_t i = 0; i < n; ++i) count += v[i] != T(0);
      *outputs[0] = Tensor::hostAllocate({rank, count}, DataType::kI64);
      int64_t* y = outputs[0]->data<int64_t>();
      int64_t k = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (v[i] == T(0)) continue;
        for (int64_t d = rank - 1, rest = i; d >= 0; --d) {  // unravel i
          y[d * count + k] = rest % shape[d];
          rest /= shape[d];
        }
        ++k;
      }
    });
    return Status::ok();
  }
};

std::unique_ptr<Execution> create(Backend* b, const Node&, const Tensors& inputs, const Tensors&) {
  bool numeric = dispatchNumeric(inputs[0]->dtype(), [](auto) {});
  if (!numeric) return nullptr;
  return std::make_unique<CpuNonZero>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, NonZero, create);

}  // namespace tessera
