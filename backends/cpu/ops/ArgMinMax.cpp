// CPU ArgMax / ArgMin over [outer, n, inner]. With inner > 1, up to 64 neighbouring
// searches run side by side so that each step reads contiguous memory.
#include <algorithm>
#include <string>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "ops/ArgMinMax.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

constexpr int64_t kLanes = 64;

class CpuArgMinMax final : public Execution {
 public:
  CpuArgMinMax(Backend* b, const ArgMinMaxParams& p) : Execution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    if (!params_.split(inputs[0]->shape(), &outer_, &n_, &inner_))
      return Status::invalid("ArgMin/ArgMax: axis " + std::to_string(params_.axis) + " out of range");
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (outputs[0]->elementCount() == 0) return Status::ok();
    dispatchNumeric(inputs[0]->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same<T, bool>::value) {
        // Which comparisons replace the current best: strict keeps the first of equal
        // values, non-strict moves to the last.
        const bool last = params_.selectLastIndex;
        if (params_.max) {
          if (last) run<T>(inputs[0]->data<T>(), outputs[0]->data<int64_t>(), [](T v, T b) { return v >= b; });
          else run<T>(inputs[0]->data<T>(), outputs[0]->data<int64_t>(), [](T v, T b) { return v > b; });
        } else {
          if (last) run<T>(inputs[0]->data<T>(), outputs[0]->data<int64_t>(), [](T v, T b) { return v <= b; });
          else run<T>(inputs[0]->data<T>(), outputs[0]->data<int64_t>(), [](T v, T b) { return v < b; });
        }
      }
    });
    return Status::ok();
  }

 private:
  template <typename T, typename Better>
  void run(const T* x, int64_t* y, Better better) {
    const int64_t n = n_, inner = inner_;
    const int64_t blocks = (inner + kLanes - 1) / kLanes;
    const int64_t minTasks =
        std::max<int64_t>(1, 16384 / std::max<int64_t>(1, n * std::min(inner, kLanes)));
    cpuPool(*this).parallelFor(outer_ * blocks, [&](int64_t begin, int64_t end) {
      T best[kLanes];
      int64_t where[kLanes];
      for (int64_t t = begin; t < end; ++t) {
        const int64_t o = t / blocks, lane0 = (t % blocks) * kLanes;
        const int64_t lanes = std::min(kLanes, inner - lane0);
        const T* base = x + o * n * inner + lane0;
        for (int64_t l = 0; l < lanes; ++l) {
          best[l] = base[l];
          where[l] = 0;
        }
        for (int64_t j = 1; j < n; ++j) {
          const T* row = base + j * inner;
          for (int64_t l = 0; l < lanes; ++l) {
            if (better(row[l], best[l])) {
              best[l] = row[l];
              where[l] = j;
            }
          }
        }
        std::copy(where, where + lanes, y + o * inner + lane0);
      }
    }, minTasks);
  }

  ArgMinMaxParams params_;
  int64_t outer_ = 1, n_ = 1, inner_ = 1;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  ArgMinMaxParams p;
  if (!ArgMinMaxParams::parse(node, &p).isOk()) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (t == DataType::kBool || !dispatchNumeric(t, [](auto) {})) return nullptr;
  return std::make_unique<CpuArgMinMax>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, ArgMax, create);
TESSERA_REGISTER_EXECUTION(kCPU, ArgMin, create);

}  // namespace tessera
