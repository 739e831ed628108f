// The element conversion shared by CPU Cast and CastLike, following numpy's astype (what
// ONNX's reference does): floats to integers truncate toward zero, integers narrow by
// wrapping, anything to bool is "!= 0" (NaN is true), bool is 0 or 1.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backends/cpu/ops/Elementwise.hpp"
#include "tessera/Tensor.hpp"
#include "tessera/ThreadPool.hpp"

namespace tessera {

// f32 -> bf16 by truncation, as ONNX's reference Cast does (onnx <= 1.13; its test data
// expects it). Rounding to nearest would differ from that data by one bf16 ulp (0.4%).
// NaN stays a (quiet) NaN.
inline uint16_t floatToBFloat16Truncate(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>(x >> 16);
}

template <typename To, typename From>
inline To castValue(From raw) {
  const auto v = Element<From>::load(raw);  // f16/bf16 read as f32
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

// Converts the first n elements of x into y (any two dtypes dispatchElement knows), in
// parallel; a plain copy when the dtypes match.
inline void castElements(ThreadPool& pool, const Tensor& x, Tensor& y, int64_t n) {
  if (x.dtype() == y.dtype()) {
    if (y.data() != x.data()) std::memcpy(y.data(), x.data(), static_cast<size_t>(n) * dataTypeSize(x.dtype()));
    return;
  }
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
}

// Cast and CastLike take every dtype with a fixed size except strings.
inline bool castable(DataType t) {
  return t != DataType::kString && t != DataType::kUnknown && dataTypeSize(t) != 0;
}

}  // namespace tessera
