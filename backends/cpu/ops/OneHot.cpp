// CPU OneHot (semantics: ops/OneHot.hpp): indices of every numeric dtype (f16/bf16 included),
// values of any fixed-size dtype (copied by element size). The output is [outer, depth, inner]
// around the indices' [outer, inner]; each task fills whole outer blocks with off, then
// writes on at each valid index.
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/OneHot.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// The index as an int64, truncated toward zero; values no int64 holds (NaN, huge) give
// int64's lowest, which is out of range for every depth.
template <typename T>
inline int64_t indexValue(T raw) {
  const auto v = Element<T>::load(raw);
  using V = std::decay_t<decltype(v)>;
  if constexpr (std::is_floating_point_v<V>) {
    return floatToInteger<int64_t>(v);
  } else if constexpr (std::is_unsigned_v<V>) {
    return v > static_cast<V>(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::lowest()
                                                                   : static_cast<int64_t>(v);
  } else {
    return static_cast<int64_t>(v);
  }
}

class CpuOneHot final : public Execution {
 public:
  CpuOneHot(Backend* b, const Node& node, const OneHotParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Shape& s = inputs[0]->shape();
    int64_t axis = 0;
    TESSERA_RETURN_IF_ERROR(params_.outputAxis(node_, static_cast<int64_t>(s.size()), &axis));
    outer_ = inner_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= s[d];
    for (size_t d = static_cast<size_t>(axis); d < s.size(); ++d) inner_ *= s[d];
    depth_ = outputs[0]->dim(static_cast<int>(axis));
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    dispatchElement(inputs[0]->dtype(), [&](auto indexTag) {
      using I = typename decltype(indexTag)::type;
      dispatchBySize(dataTypeSize(outputs[0]->dtype()), [&](auto valueTag) {
        using V = typename decltype(valueTag)::type;
        run(inputs[0]->data<I>(), inputs[2]->data<V>(), outputs[0]->data<V>());
      });
    });
    return Status::ok();
  }

 private:
  template <typename I, typename V>
  void run(const I* indices, const V* values, V* y) {
    const int64_t depth = depth_, inner = inner_, block = depth * inner;
    if (block == 0) return;
    const V off = values[0], on = values[1];
    cpuPool(*this).parallelFor(outer_, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        V* out = y + o * block;
        std::fill(out, out + block, off);
        for (int64_t i = 0; i < inner; ++i) {
          int64_t k = indexValue(indices[o * inner + i]);
          if (k < 0) k += depth;  // k >= lowest + depth: no overflow
          if (k >= 0 && k < depth) out[k * inner + i] = on;
        }
      }
    }, std::max<int64_t>(1, kElementwiseGrain / block));
  }

  Node node_;
  OneHotParams params_;
  int64_t outer_ = 0, inner_ = 0, depth_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  OneHotParams p;
  if (!OneHotParams::parse(node, &p).isOk() || inputs.size() != 3 || !inputs[0] || !inputs[2]) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (!isFloat(t) && !isInteger(t)) return nullptr;
  if (outputs.empty() || !outputs[0] || !dispatchBySize(dataTypeSize(outputs[0]->dtype()), [](auto) {}))
    return nullptr;
  return std::make_unique<CpuOneHot>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, OneHot, create);

}  // namespace tessera
