// CPU TopK: for each line along the axis, a partial sort of the indices by (value, index),
// so equal values keep the lower index first. k comes from the output shape.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "ops/TopK.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuTopK final : public Execution {
 public:
  CpuTopK(Backend* b, const TopKParams& p) : Execution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Shape& s = inputs[0]->shape();
    int64_t axis = 0;
    normalizeAxis(params_.axis, static_cast<int64_t>(s.size()), &axis);
    outer_ = inner_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= s[d];
    for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner_ *= s[d];
    n_ = s[axis];
    k_ = outputs[0]->dim(static_cast<int>(axis));
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (outputs[0]->elementCount() == 0) return Status::ok();
    int64_t* indices = outputs.size() > 1 && outputs[1] ? outputs[1]->data<int64_t>() : nullptr;
    dispatchNumeric(inputs[0]->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same<T, bool>::value) {
        const T* x = inputs[0]->data<T>();
        T* values = outputs[0]->data<T>();
        if (params_.largest)
          run(x, values, indices, [x](int64_t a, int64_t b) { return x[a] > x[b] || (x[a] == x[b] && a < b); });
        else
          run(x, values, indices, [x](int64_t a, int64_t b) { return x[a] < x[b] || (x[a] == x[b] && a < b); });
      }
    });
    return Status::ok();
  }

 private:
  // `before(a, b)`: source element a ranks ahead of b. Positions are compared as source
  // offsets, which grow with the index along the axis, so ties resolve by index.
  template <typename T, typename Before>
  void run(const T* x, T* values, int64_t* indices, Before before) {
    const int64_t n = n_, k = k_, inner = inner_;
    const int64_t minTasks = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, n));
    cpuPool(*this).parallelFor(outer_ * inner, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> order(static_cast<size_t>(n));  // one buffer per chunk
      for (int64_t t = begin; t < end; ++t) {
        const int64_t o = t / inner, i = t % inner;
        const int64_t first = o * n * inner + i;
        for (int64_t j = 0; j < n; ++j) order[j] = first + j * inner;
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        const int64_t outFirst = o * k * inner + i;
        for (int64_t j = 0; j < k; ++j) {
          values[outFirst + j * inner] = x[order[j]];
          if (indices) indices[outFirst + j * inner] = (order[j] - first) / inner;
        }
      }
    }, minTasks);
  }

  TopKParams params_;
  int64_t outer_ = 1, n_ = 1, inner_ = 1, k_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  TopKParams p;
  if (!TopKParams::parse(node, &p).isOk()) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (t == DataType::kBool || !dispatchNumeric(t, [](auto) {})) return nullptr;
  return std::make_unique<CpuTopK>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, TopK, create);

}  // namespace tessera
