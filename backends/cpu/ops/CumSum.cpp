// CPU CumSum (semantics: ops/CumSum.hpp) on every integer dtype and f16, bf16, f32, f64.
// x is viewed as [outer, n, inner]; each step along the axis adds a row of `inner` values to
// the previous output row, so the output is its own accumulator and the inner loop runs over
// contiguous memory. Integers wrap on overflow (like numpy); 16-bit floats round each partial
// sum to their type, as numpy's cumsum does. Tasks are blocks of independent lines.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/CumSum.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// Lines (positions across the axis) summed together by one task.
constexpr int64_t kLineBlock = 256;

class CpuCumSum final : public Execution {
 public:
  CpuCumSum(Backend* b, const Node& node, const CumSumParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    const Shape& s = inputs[0]->shape();
    int64_t axis = 0;
    TESSERA_RETURN_IF_ERROR(CumSumParams::axis(node_, inputs[1], static_cast<int64_t>(s.size()), &axis));
    outer_ = inner_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= s[d];
    for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner_ *= s[d];
    n_ = s[axis];
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    dispatchElement(inputs[0]->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>) run<T>(inputs[0]->data<T>(), outputs[0]->data<T>());
    });
    return Status::ok();
  }

 private:
  template <typename T>
  void run(const T* x, T* y) {
    if (n_ == 0 || inner_ == 0) return;
    using E = Element<T>;
    const int64_t n = n_, inner = inner_, blocks = (inner + kLineBlock - 1) / kLineBlock;
    const bool exclusive = params_.exclusive, reverse = params_.reverse;
    cpuPool(*this).parallelFor(outer_ * blocks, [&](int64_t begin, int64_t end) {
      for (int64_t task = begin; task < end; ++task) {
        const int64_t o = task / blocks, first = (task % blocks) * kLineBlock;
        const int64_t count = std::min(kLineBlock, inner - first);
        const T* xs = x + o * n * inner + first;
        T* ys = y + o * n * inner + first;
        // Step k of the sum visits axis position pos(k); the previous output row is at pos(k-1).
        auto row = [&](int64_t k) { return (reverse ? n - 1 - k : k) * inner; };
        for (int64_t i = 0; i < count; ++i) ys[row(0) + i] = exclusive ? E::store(0) : xs[row(0) + i];
        for (int64_t k = 1; k < n; ++k) {
          const T* add = xs + (exclusive ? row(k - 1) : row(k));
          const T* prev = ys + row(k - 1);
          T* out = ys + row(k);
          for (int64_t i = 0; i < count; ++i)
            out[i] = E::store(wrapAdd(E::load(prev[i]), E::load(add[i])));
        }
      }
    }, std::max<int64_t>(1, kElementwiseGrain / (n * std::min(kLineBlock, inner))));
  }

  Node node_;
  CumSumParams params_;
  int64_t outer_ = 0, n_ = 0, inner_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  CumSumParams p;
  if (!CumSumParams::parse(node, &p).isOk() || inputs.size() != 2 || !inputs[0] || !inputs[1]) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (!isFloat(t) && !isInteger(t)) return nullptr;
  return std::make_unique<CpuCumSum>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, CumSum, create);

}  // namespace tessera
