// CPU MeanVarianceNormalization (semantics: ops/MeanVarianceNormalization.hpp) on f16, bf16,
// f32 and f64. The elements split into groups (one per index over the kept dims) of
// `reducedCount` elements each; onResize tabulates each group's base offset and the offsets
// of its members, so any set of axes is one loop. Groups run in parallel; the mean and the
// variance (two passes, E[(x - mean)^2]) are kept in double.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/MeanVarianceNormalization.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// Offsets of every index over the dims where `pick` holds (others at 0), row-major.
std::vector<int64_t> offsetsOver(const Shape& s, const std::vector<bool>& reduced, bool pick) {
  std::vector<int64_t> offsets = {0};
  int64_t stride = 1;
  std::vector<int64_t> strides(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= s[d];
  }
  for (size_t d = 0; d < s.size(); ++d) {
    if (reduced[d] != pick) continue;
    std::vector<int64_t> next;
    next.reserve(offsets.size() * s[d]);
    for (int64_t base : offsets)
      for (int64_t i = 0; i < s[d]; ++i) next.push_back(base + i * strides[d]);
    offsets.swap(next);
  }
  return offsets;
}

class CpuMeanVarianceNormalization final : public Execution {
 public:
  CpuMeanVarianceNormalization(Backend* b, const Node& node, const MeanVarianceNormalizationParams& p)
      : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    const Shape& s = inputs[0]->shape();
    std::vector<bool> reduced;
    TESSERA_RETURN_IF_ERROR(params_.reducedDims(node_, static_cast<int64_t>(s.size()), &reduced));
    groups_ = inputs[0]->elementCount() == 0 ? std::vector<int64_t>{} : offsetsOver(s, reduced, false);
    members_ = inputs[0]->elementCount() == 0 ? std::vector<int64_t>{} : offsetsOver(s, reduced, true);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    dispatchElement(inputs[0]->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<typename Element<T>::Compute>)
        run<T>(inputs[0]->data<T>(), outputs[0]->data<T>());
    });
    return Status::ok();
  }

 private:
  template <typename T>
  void run(const T* x, T* y) {
    using E = Element<T>;
    const int64_t m = static_cast<int64_t>(members_.size());
    if (m == 0) return;
    const int64_t* members = members_.data();
    const int64_t* groups = groups_.data();
    cpuPool(*this).parallelFor(static_cast<int64_t>(groups_.size()), [&](int64_t begin, int64_t end) {
      for (int64_t g = begin; g < end; ++g) {
        const T* xs = x + groups[g];
        T* ys = y + groups[g];
        double sum = 0;
        for (int64_t i = 0; i < m; ++i) sum += static_cast<double>(E::load(xs[members[i]]));
        const double mean = sum / static_cast<double>(m);
        double squares = 0;
        for (int64_t i = 0; i < m; ++i) {
          const double d = static_cast<double>(E::load(xs[members[i]])) - mean;
          squares += d * d;
        }
        const double scale = 1.0 / (std::sqrt(squares / static_cast<double>(m)) +
                                    MeanVarianceNormalizationParams::kEpsilon);
        using C = typename E::Compute;
        for (int64_t i = 0; i < m; ++i)
          ys[members[i]] = E::store(static_cast<C>((static_cast<double>(E::load(xs[members[i]])) - mean) * scale));
      }
    }, std::max<int64_t>(1, kElementwiseGrain / m));
  }

  Node node_;
  MeanVarianceNormalizationParams params_;
  std::vector<int64_t> groups_, members_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  MeanVarianceNormalizationParams p;
  if (!MeanVarianceNormalizationParams::parse(node, &p).isOk() || inputs.empty() || !inputs[0]) return nullptr;
  if (!isFloat(inputs[0]->dtype())) return nullptr;
  return std::make_unique<CpuMeanVarianceNormalization>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, MeanVarianceNormalization, create);

}  // namespace tessera
