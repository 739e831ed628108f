// Shared pieces of the CPU elementwise executions (Binary, Pow, Compare, Where, PRelu):
// f16/bf16 storage types that compute in f32, a dtype dispatch that includes them, span
// loops specialised for the broadcast patterns (vector-vector, vector-scalar, ...) so the
// compiler vectorises the common ones, and the parallel driver over a BroadcastPlan.
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

#include "backends/cpu/Broadcast.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "tessera/DataType.hpp"
#include "tessera/ThreadPool.hpp"

namespace tessera {

// 16-bit float storage; arithmetic happens in f32 (load -> compute -> store).
struct Half { uint16_t bits; };
struct BFloat16 { uint16_t bits; };

template <typename T> struct Element {
  using Compute = T;
  static T load(T v) { return v; }
  static T store(T v) { return v; }
};
template <> struct Element<Half> {
  using Compute = float;
  static float load(Half h) { return halfToFloat(h.bits); }
  static Half store(float f) { return Half{floatToHalf(f)}; }
};
template <> struct Element<BFloat16> {
  using Compute = float;
  static float load(BFloat16 h) { return bfloat16ToFloat(h.bits); }
  static BFloat16 store(float f) { return BFloat16{floatToBFloat16(f)}; }
};

// dispatchNumeric plus f16 and bf16 (as Half / BFloat16).
template <typename Fn>
bool dispatchElement(DataType t, Fn&& fn) {
  if (t == DataType::kF16) { fn(TypeTag<Half>{}); return true; }
  if (t == DataType::kBF16) { fn(TypeTag<BFloat16>{}); return true; }
  return dispatchNumeric(t, fn);
}

// Elements per parallel task: below this, threading costs more than it saves.
constexpr int64_t kElementwiseGrain = 16384;

// out[i] = op(a[i * sa], b[i * sb]) for i < n, where sa, sb are 0 (broadcast) or 1.
// `out` may alias `a` (variadic ops accumulate in place).
template <typename A, typename B, typename O, typename Op>
inline void binarySpan(const A* a, int64_t sa, const B* b, int64_t sb, O* out, int64_t n,
                       Op op) {
  if (sa && sb) {
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
  } else if (sa) {
    const B bv = *b;
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], bv);
  } else if (sb) {
    const A av = *a;
    for (int64_t i = 0; i < n; ++i) out[i] = op(av, b[i]);
  } else {
    const O v = op(*a, *b);
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

// Runs a two-input span kernel over every output element of `plan`, in parallel.
template <typename A, typename B, typename O, typename Op>
void runBinaryPlan(ThreadPool& pool, const BroadcastPlan& plan, const A* a, const B* b, O* out,
                   Op op) {
  const int64_t sa = plan.spanStride(0), sb = plan.spanStride(1);
  pool.parallelFor(plan.outputCount(), [&](int64_t begin, int64_t end) {
    plan.forEachSpan(begin, end, [&](int64_t o, const int64_t* in, int64_t n) {
      binarySpan(a + in[0], sa, b + in[1], sb, out + o, n, op);
    });
  }, kElementwiseGrain);
}

// Integer arithmetic that wraps like the hardware (and numpy) instead of being UB on
// signed overflow.
template <typename T>
inline T wrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
inline T wrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return static_cast<T>(a - b);
  }
}
template <typename T>
inline T wrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    // Promote small unsigned types to unsigned int so the product cannot overflow int.
    using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) *
                                         static_cast<W>(static_cast<U>(b))));
  } else if constexpr (std::is_integral_v<T>) {
    using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, T>;
    return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
  } else {
    return a * b;
  }
}
// Integer division truncates toward zero (C, and ONNX's reference: float divide then cast).
// Division by zero gives 0 and INT_MIN / -1 wraps, instead of trapping.
template <typename T>
inline T safeDiv(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return T(0);
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return wrapSub(T(0), a);
    }
    return static_cast<T>(a / b);
  } else {
    return a / b;
  }
}
// numpy's maximum/minimum: a NaN in either operand gives NaN.
template <typename T>
inline T maxPropagateNaN(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (a != a || a >= b) ? a : b;
  else return a >= b ? a : b;
}
template <typename T>
inline T minPropagateNaN(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (a != a || a <= b) ? a : b;
  else return a <= b ? a : b;
}

// Float to integer as numpy's astype does on x86 for in-range values; out-of-range and NaN
// give the type's lowest value (what cvttsd2si yields) instead of undefined behaviour.
template <typename To, typename From>
inline To floatToInteger(From v) {
  const double d = static_cast<double>(v);
  if constexpr (std::is_signed_v<To>) {
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
      return std::numeric_limits<To>::lowest();
    }
    return static_cast<To>(static_cast<int64_t>(d));  // narrows by wrapping, like numpy
  } else {
    if (d >= 0.0 && d < 18446744073709551616.0) {
      return static_cast<To>(static_cast<uint64_t>(d));
    }
    if (d < 0.0 && d >= -9223372036854775808.0) {
      return static_cast<To>(static_cast<uint64_t>(static_cast<int64_t>(d)));
    }
    return static_cast<To>(0);
  }
}

}  // namespace tessera
