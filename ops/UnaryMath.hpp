// The scalar function of each unary op, inline and selected at compile time, so CPU loops
// can run one op without a call or a switch per element (and vectorise where they can).
// Every backend's kernel must match these.
#pragma once
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "ops/Unary.hpp"

namespace tessera {

template <UnaryKind K, typename T>
inline T unaryScalar(const UnaryParams& p, T x) {
  if constexpr (K == UnaryKind::kAbs) return std::fabs(x);
  else if constexpr (K == UnaryKind::kNeg) return -x;
  else if constexpr (K == UnaryKind::kReciprocal) return T(1) / x;
  else if constexpr (K == UnaryKind::kFloor) return std::floor(x);
  else if constexpr (K == UnaryKind::kCeil) return std::ceil(x);
  else if constexpr (K == UnaryKind::kRound) return std::nearbyint(x);  // half to even
  else if constexpr (K == UnaryKind::kSqrt) return std::sqrt(x);
  else if constexpr (K == UnaryKind::kExp) return std::exp(x);
  else if constexpr (K == UnaryKind::kLog) return std::log(x);
  else if constexpr (K == UnaryKind::kSin) return std::sin(x);
  else if constexpr (K == UnaryKind::kCos) return std::cos(x);
  else if constexpr (K == UnaryKind::kTan) return std::tan(x);
  else if constexpr (K == UnaryKind::kErf) return std::erf(x);
  else if constexpr (K == UnaryKind::kSign) return x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0));
  else if constexpr (K == UnaryKind::kTanh) return std::tanh(x);
  else if constexpr (K == UnaryKind::kSigmoid) {
    // exp of -|x| never overflows; one exp serves both signs.
    const T e = std::exp(-std::fabs(x));
    const T s = T(1) / (T(1) + e);
    return x >= T(0) ? s : e * s;
  } else if constexpr (K == UnaryKind::kRelu) return x > T(0) ? x : T(0);
  else if constexpr (K == UnaryKind::kLeakyRelu) return x >= T(0) ? x : T(p.alpha) * x;
  else if constexpr (K == UnaryKind::kElu) return x >= T(0) ? x : T(p.alpha) * (std::exp(x) - T(1));
  else if constexpr (K == UnaryKind::kSelu)
    return T(p.gamma) * (x > T(0) ? x : T(p.alpha) * (std::exp(x) - T(1)));
  else if constexpr (K == UnaryKind::kCelu)
    return std::max(T(0), x) + std::min(T(0), T(p.alpha) * (std::exp(x / T(p.alpha)) - T(1)));
  else if constexpr (K == UnaryKind::kSoftplus)
    return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  else if constexpr (K == UnaryKind::kSoftsign) return x / (T(1) + std::fabs(x));
  else if constexpr (K == UnaryKind::kThresholdedRelu) return x > T(p.alpha) ? x : T(0);
  else if constexpr (K == UnaryKind::kHardSigmoid)
    return std::max(T(0), std::min(T(1), T(p.alpha) * x + T(p.beta)));
  else if constexpr (K == UnaryKind::kHardSwish)
    return x * std::max(T(0), std::min(T(1), (x + T(3)) * T(1.0 / 6.0)));  // x/6 + 1/2, no division
  else if constexpr (K == UnaryKind::kAcos) return std::acos(x);
  else if constexpr (K == UnaryKind::kAsin) return std::asin(x);
  else if constexpr (K == UnaryKind::kAtan) return std::atan(x);
  else if constexpr (K == UnaryKind::kAcosh) return std::acosh(x);
  else if constexpr (K == UnaryKind::kAsinh) return std::asinh(x);
  else if constexpr (K == UnaryKind::kAtanh) return std::atanh(x);
  else if constexpr (K == UnaryKind::kCosh) return std::cosh(x);
  else if constexpr (K == UnaryKind::kSinh) return std::sinh(x);
  else if constexpr (K == UnaryKind::kShrink)  // alpha: lambd, beta: bias
    return x < -T(p.alpha) ? x + T(p.beta) : (x > T(p.alpha) ? x - T(p.beta) : T(0));
  else return x;  // kIdentity
}

// Calls fn(std::integral_constant<UnaryKind, K>) for the runtime kind k.
template <typename Fn>
inline void dispatchUnaryKind(UnaryKind k, Fn&& fn) {
#define TESSERA_UNARY_CASE(K) \
  case UnaryKind::K: fn(std::integral_constant<UnaryKind, UnaryKind::K>{}); return;
  switch (k) {
    TESSERA_UNARY_CASE(kAbs) TESSERA_UNARY_CASE(kNeg) TESSERA_UNARY_CASE(kReciprocal)
    TESSERA_UNARY_CASE(kFloor) TESSERA_UNARY_CASE(kCeil) TESSERA_UNARY_CASE(kRound)
    TESSERA_UNARY_CASE(kSqrt) TESSERA_UNARY_CASE(kExp) TESSERA_UNARY_CASE(kLog)
    TESSERA_UNARY_CASE(kSin) TESSERA_UNARY_CASE(kCos) TESSERA_UNARY_CASE(kTan)
    TESSERA_UNARY_CASE(kErf) TESSERA_UNARY_CASE(kSign) TESSERA_UNARY_CASE(kTanh)
    TESSERA_UNARY_CASE(kSigmoid) TESSERA_UNARY_CASE(kRelu) TESSERA_UNARY_CASE(kLeakyRelu)
    TESSERA_UNARY_CASE(kElu) TESSERA_UNARY_CASE(kSelu) TESSERA_UNARY_CASE(kCelu)
    TESSERA_UNARY_CASE(kSoftplus) TESSERA_UNARY_CASE(kSoftsign)
    TESSERA_UNARY_CASE(kThresholdedRelu) TESSERA_UNARY_CASE(kHardSigmoid)
    TESSERA_UNARY_CASE(kHardSwish) TESSERA_UNARY_CASE(kIdentity)
    TESSERA_UNARY_CASE(kAcos) TESSERA_UNARY_CASE(kAsin) TESSERA_UNARY_CASE(kAtan)
    TESSERA_UNARY_CASE(kAcosh) TESSERA_UNARY_CASE(kAsinh) TESSERA_UNARY_CASE(kAtanh)
    TESSERA_UNARY_CASE(kCosh) TESSERA_UNARY_CASE(kSinh) TESSERA_UNARY_CASE(kShrink)
  }
#undef TESSERA_UNARY_CASE
}

}  // namespace tessera
