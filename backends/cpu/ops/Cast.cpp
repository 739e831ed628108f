// CPU Cast between every pair of f32 f64 f16 bf16 i8..i64 u8..u64 bool, following numpy's
// astype (what ONNX's reference does): floats to integers truncate toward zero, integers
// narrow by wrapping, anything to bool is "!= 0" (NaN is true), bool is 0 or 1.
// Layout-agnostic like Unary: same shape and layout in and out, so it runs on the physical
// buffer (padding lanes converted and ignored).
#include <cstring>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/Cast.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// f32 -> bf16 by truncation, as ONNX's reference Cast does (onnx <= 1.13; its test data
// expects it). Rounding to nearest would differ from that data by one bf16 ulp (0.4%).
// NaN stays a (quiet) NaN.
inline uint16_t floatToBFloat16Truncate(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>(x >> 16);
}

// The value of v in the wider arithmetic type it is read as (f16/bf16 as f32).
template <typename From>
inline auto loadValue(From v) {
  return Element<From>::load(v);
}

template <typename To, typename From>
inline To castValue(From raw) {
  const auto v = loadValue(raw);
  using V = std::decay_t<decltype(v)>;
  if constexpr (std::is_same_v<To, bool>) {
    return v != V(0);
  } else if constexpr (std::is_same_v<To, Half>) {
    return Half{floatToHalf(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    return BFloat16{floatToBFloat16Truncate(static_cast<float>(v))};
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<V>) {
    return floatToInteger<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

class CpuCast final : public Execution {
 public:
  using Execution::Execution;

  void selectLayouts(const std::vector<Layout>& available, const Tensors&,
                     std::vector<Layout>* in, std::vector<Layout>* out) const override {
    *in = {available[0]};
    *out = {available[0]};
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& x = *inputs[0];
    Tensor& y = *outputs[0];
    const int64_t n = physicalElementCount(x.shape(), x.layout());
    if (x.dtype() == y.dtype()) {
      if (y.data() != x.data()) std::memcpy(y.data(), x.data(), x.byteSize());
      return Status::ok();
    }
    ThreadPool& pool = cpuPool(*this);
    dispatchElement(x.dtype(), [&](auto fromTag) {
      using From = typename decltype(fromTag)::type;
      dispatchElement(y.dtype(), [&](auto toTag) {
        using To = typename decltype(toTag)::type;
        const From* src = x.data<From>();
        To* dst = y.data<To>();
        pool.parallelFor(n, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) dst[i] = castValue<To>(src[i]);
        }, kElementwiseGrain);
      });
    });
    return Status::ok();
  }
};

bool castable(DataType t) {
  return t != DataType::kString && t != DataType::kUnknown && dataTypeSize(t) != 0;
}

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  CastParams p;
  if (!CastParams::parse(node, &p).isOk() || inputs.empty() || !inputs[0]) return nullptr;
  if (!castable(inputs[0]->dtype()) || !castable(p.to)) return nullptr;
  return std::make_unique<CpuCast>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Cast, create);

}  // namespace tessera
