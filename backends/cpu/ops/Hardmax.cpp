// CPU Hardmax on f16, bf16, f32 and f64: per line along the axis (the tail before opset 13,
// see ops/Softmax.hpp), 1 at the first maximum and 0 elsewhere. Like numpy's argmax, which
// ONNX's reference uses, a NaN counts as the maximum (the first NaN wins).
#include <algorithm>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/Softmax.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuHardmax final : public Execution {
 public:
  CpuHardmax(Backend* b, const Node& node, const SoftmaxParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    return params_.split3(node_, inputs[0]->shape(), &outer_, &n_, &inner_);
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    dispatchElement(inputs[0]->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename Element<T>::Compute;
      if constexpr (std::is_floating_point_v<C>) run<T>(inputs[0]->data<T>(), outputs[0]->data<T>());
    });
    return Status::ok();
  }

 private:
  template <typename T>
  void run(const T* x, T* y) {
    if (n_ == 0) return;
    const int64_t n = n_, inner = inner_;
    const T zero = Element<T>::store(0), one = Element<T>::store(1);
    cpuPool(*this).parallelFor(outer_ * inner, [&](int64_t begin, int64_t end) {
      for (int64_t line = begin; line < end; ++line) {
        const int64_t base = (line / inner) * n * inner + line % inner;
        int64_t best = 0;
        auto top = Element<T>::load(x[base]);
        for (int64_t k = 1; k < n && top == top; ++k) {  // stop at a NaN: it stays the maximum
          const auto v = Element<T>::load(x[base + k * inner]);
          if (v > top || v != v) {
            top = v;
            best = k;
          }
        }
        for (int64_t k = 0; k < n; ++k) y[base + k * inner] = k == best ? one : zero;
      }
    }, std::max<int64_t>(1, kElementwiseGrain / n));
  }

  Node node_;
  SoftmaxParams params_;
  int64_t outer_ = 0, n_ = 0, inner_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  SoftmaxParams p;
  if (!SoftmaxParams::parse(node, &p).isOk() || inputs.empty() || !inputs[0]) return nullptr;
  if (!isFloat(inputs[0]->dtype())) return nullptr;
  return std::make_unique<CpuHardmax>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Hardmax, create);

}  // namespace tessera
