// CPU Clip for every numeric dtype. Bounds are read at execute time (they may be computed
// by the graph). Layout-agnostic like Unary; bound inputs are single elements, whose value
// is element 0 in any layout.
#include <cmath>
#include <limits>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/Clip.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// A float bound (the attributes before opset 11, defaulting to +-FLT_MAX) in C: an integer
// type takes it saturated to its range (a float outside it, cast, is undefined behaviour),
// and a NaN bound as no bound at all.
template <typename C>
C boundFromFloat(float v, C none) {
  if constexpr (std::is_floating_point_v<C>) {
    return static_cast<C>(v);
  } else {
    if (std::isnan(v)) return none;
    if (static_cast<double>(v) <= static_cast<double>(std::numeric_limits<C>::lowest()))
      return std::numeric_limits<C>::lowest();
    if (static_cast<double>(v) >= static_cast<double>(std::numeric_limits<C>::max())) return std::numeric_limits<C>::max();
    return static_cast<C>(v);
  }
}

class CpuClip final : public Execution {
 public:
  CpuClip(Backend* b, const ClipParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&,
                     std::vector<Layout>* in, std::vector<Layout>* out) const override {
    *in = available;
    *out = {available[0]};
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& x = *inputs[0];
    const int64_t n = physicalElementCount(x.shape(), x.layout());
    const Tensor* minT = inputs.size() > 1 ? inputs[1] : nullptr;
    const Tensor* maxT = inputs.size() > 2 ? inputs[2] : nullptr;
    dispatchElement(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using E = Element<T>;
      using C = typename E::Compute;
      if constexpr (!std::is_same_v<T, bool>) {
        C lo = std::numeric_limits<C>::lowest();
        C hi = std::numeric_limits<C>::max();
        if (params_.boundsFromInputs) {
          if (minT && minT->data()) lo = E::load(*minT->data<T>());
          if (maxT && maxT->data()) hi = E::load(*maxT->data<T>());
        } else {
          lo = boundFromFloat<C>(params_.minAttr, lo);
          hi = boundFromFloat<C>(params_.maxAttr, hi);
        }
        const T* src = x.data<T>();
        T* dst = outputs[0]->data<T>();
        // max then min, like numpy.clip: NaN passes through, min > max gives max.
        cpuPool(*this).parallelFor(n, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) {
            C v = E::load(src[i]);
            v = v < lo ? lo : v;
            v = hi < v ? hi : v;
            dst[i] = E::store(v);
          }
        }, kElementwiseGrain);
      }
    });
    return Status::ok();
  }

 private:
  ClipParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  ClipParams p;
  if (!ClipParams::parse(node, &p).isOk() || inputs.empty() || !inputs[0]) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (t == DataType::kBool || t == DataType::kString || dataTypeSize(t) == 0) return nullptr;
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i] && (inputs[i]->dtype() != t || inputs[i]->elementCount() != 1)) return nullptr;
  }
  return std::make_unique<CpuClip>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Clip, create);

}  // namespace tessera
