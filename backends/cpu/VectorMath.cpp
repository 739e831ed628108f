// Vectorised exp, expm1, log, sigmoid, tanh, erf, softplus and the expm1 activations.
//
// Each function is written once over a vector of W floats (GCC/Clang vector extensions) and
// compiled three times: 16 lanes in functions built for AVX-512, 8 lanes for AVX2+FMA, and 4
// lanes with no target attribute (SSE2 on x86-64, NEON elsewhere). The library itself is
// built for baseline x86-64, so all vector-typed code is always_inline and enters the target
// functions through pointer arguments only (a vector argument crossing into a function built
// for another instruction set changes the ABI; Clang refuses it).
//
// The methods (docs/cpu-vector-math.md has the measured errors):
//   exp     x = k ln2 + r, |r| <= ln2/2, with ln2 in two parts (Cody-Waite) so k ln2 is exact;
//           e^r = 1 + r + r^2 Q(r), Q a degree-4 minimax fit; 2^k applied as two factors
//           2^(k/2) so every result from FLT_MAX down through the subnormals rounds once.
//   expm1   the same reduction; 2^k (e^r - 1) + (2^k - 1), so |x| <= ln2/2 (k = 0) never adds 1.
//   log     x = 2^e m, m in [sqrt(1/2), sqrt(2)), f = m - 1 exact; log(1 + f) = f - f^2/2 +
//           f^3 R(f), R a degree-7 fit; e ln2 added in two parts. Subnormals are scaled first.
//   sigmoid e = exp(-|x|) (never overflows): 1 / (1 + e) for x >= 0, e / (1 + e) below.
//   tanh    |x| < 0.625: x + x^3 T(x^2), T a degree-4 fit; above: t = expm1(2|x|) and
//           tanh = t / (t + 2); the sign of x is copied onto either.
//   erf     |x| < 0.875: x + x S(x^2), S a degree-5 fit of erf(x)/x - 1 (so 2/sqrt(pi) is
//           not rounded to float); above: 1 - exp(B(|x|)), B a degree-6 fit of log(erfc) on
//           [0.875, 4] (erf rounds to 1 from 3.83 on).
//   softplus max(x, 0) + log(1 + u), u = exp(-|x|) in (0, 1]: log(1 + u) is the log kernel
//           at f = u (u <= 1/2) or ln2 + log(1 + f) at f = (u - 1) / 2, both exact.
//   elu, selu, celu: expm1 on the negative side, times alpha (and gamma).
// The polynomials were fitted for minimal maximum relative error (tools: numpy, Lawson's
// iteration); NaN flows through every step, and clamps are written so that NaN passes them.
#include "backends/cpu/VectorMath.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "backends/cpu/CpuIsa.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_VECTOR_MATH_X86 1
#endif

// The helpers below take vectors by reference (a by-value vector wider than the baseline ABI's
// draws GCC's ABI note) but return them by value; they are always inlined into the functions
// built for the matching instruction set, so the return-ABI warning is moot.
#pragma GCC diagnostic ignored "-Wpsabi"

#define TESSERA_VM_INLINE inline __attribute__((always_inline))

namespace tessera {
namespace {

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693145751953125f;  // ln2 with 15 significant bits: k * kLn2Hi is exact
constexpr float kLn2Lo = 1.42860682030941723e-6f;
constexpr float kRoundMagic = 0x1.8p23f;  // x + magic - magic rounds |x| < 2^22 to an integer
constexpr uint32_t kRoundMagicBits = 0x4b400000u;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// W float lanes; kFma: the target has fused multiply-add.
template <int W, bool Fma>
struct Lanes {
  static constexpr int kWidth = W;
  static constexpr bool kFma = Fma;
  typedef float F __attribute__((vector_size(W * 4)));
  typedef int32_t I __attribute__((vector_size(W * 4)));
  typedef uint32_t U __attribute__((vector_size(W * 4)));
};

template <class L>
struct VecMath {
  using F = typename L::F;
  using I = typename L::I;
  using U = typename L::U;
  static constexpr int W = L::kWidth;

  // --- lane helpers -------------------------------------------------------------------------
  static TESSERA_VM_INLINE F load(const float* p) {
    F v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static TESSERA_VM_INLINE void store(float* p, const F& v) { std::memcpy(p, &v, sizeof v); }
  static TESSERA_VM_INLINE F splat(float v) {
    F r;
    for (int i = 0; i < W; ++i) r[i] = v;
    return r;
  }
  // a * b + c, fused where the target has it: GCC and Clang (-O2 and up) turn the per-lane
  // fmaf into one vfmadd; without FMA (portable path) it is a multiply and an add.
  static TESSERA_VM_INLINE F madd(const F& a, const F& b, const F& c) {
    if constexpr (L::kFma) {
      F r;
      for (int i = 0; i < W; ++i) r[i] = __builtin_fmaf(a[i], b[i], c[i]);
      return r;
    } else {
      return a * b + c;
    }
  }
  // c[0] + x (c[1] + x (c[2] + ...)).
  template <class... C>
  static TESSERA_VM_INLINE F horner(const F& x, float c0, C... rest) {
    if constexpr (sizeof...(rest) == 0) {
      return splat(c0);
    } else {
      return madd(horner(x, rest...), x, splat(c0));
    }
  }
  static TESSERA_VM_INLINE F select(const I& mask, const F& a, const F& b) { return mask ? a : b; }
  static TESSERA_VM_INLINE U bits(const F& v) { return (U)v; }
  static TESSERA_VM_INLINE F fromBits(const U& v) { return (F)v; }
  static TESSERA_VM_INLINE F abs(const F& v) { return fromBits(bits(v) & 0x7fffffffu); }
  static TESSERA_VM_INLINE F copySign(const F& magnitude, const F& sign) {
    return fromBits((bits(magnitude) & 0x7fffffffu) | (bits(sign) & 0x80000000u));
  }
  // Clamps that let NaN through (a comparison with NaN is false, so x is kept).
  static TESSERA_VM_INLINE F atLeast(const F& x, float lo) { return select(x < lo, splat(lo), x); }
  static TESSERA_VM_INLINE F atMost(const F& x, float hi) { return select(x > hi, splat(hi), x); }
  // 2^n for integer n in [-126, 127].
  static TESSERA_VM_INLINE F pow2(const I& n) { return fromBits((U)(n + 127) << 23); }

  // --- exp and expm1 ------------------------------------------------------------------------
  // x = k ln2 + r: the integer k and r, |r| <= ln2/2 (a hair more without FMA).
  struct Reduced {
    F r;
    I k;
  };
  static TESSERA_VM_INLINE Reduced reduce(const F& x) {
    const F t = madd(x, splat(kLog2e), splat(kRoundMagic));
    const F k = t - kRoundMagic;
    F r = madd(k, splat(-kLn2Hi), x);
    r = madd(k, splat(-kLn2Lo), r);
    return {r, (I)(bits(t) - kRoundMagicBits)};
  }
  // e^r - 1 for |r| <= ln2/2.
  static TESSERA_VM_INLINE F expm1Kernel(const F& r) {
    const F q = horner(r, 0.49999997f, 0.166665435f, 0.0416672006f, 0.00836651307f, 0.00138825167f);
    return madd(r * r, q, r);
  }
  // e^x for x in [-104, 89] or NaN (k in [-150, 129]).
  static TESSERA_VM_INLINE F expClamped(const F& x) {
    const Reduced v = reduce(x);
    const F p = expm1Kernel(v.r) + 1.f;
    const I h = v.k >> 1;
    return p * pow2(h) * pow2(v.k - h);
  }
  static TESSERA_VM_INLINE F exp(const F& x) { return expClamped(atMost(atLeast(x, -104.f), 89.f)); }
  // expClamped's value for x in [-104, 0] or NaN (k in [-150, 0]) in fewer steps: p 2^(k+64)
  // is exact (a normal float), and the one rounding is the multiply by 2^-64, as in p 2^h
  // 2^(k-h): the same bits.
  static TESSERA_VM_INLINE F expNonPositive(const F& x) {
    const Reduced v = reduce(x);
    return (expm1Kernel(v.r) + 1.f) * pow2(v.k + 64) * 0x1p-64f;
  }
  // exp's value for x <= 0 or NaN (softmax's x - max) with the one clamp that applies: the
  // same bits in a fifth fewer steps.
  static TESSERA_VM_INLINE F expAtMostZero(const F& x) { return expNonPositive(atLeast(x, -104.f)); }

  // e^x - 1 for x in [-30, 89] or NaN: 2^k (e^r - 1) + (2^k - 1) computed as
  // 2^(k-h) (2^h (e^r - 1) + (2^h - 2^(h-k))), every factor a normal float.
  static TESSERA_VM_INLINE F expm1Clamped(const F& x) {
    const Reduced v = reduce(x);
    const F em1 = expm1Kernel(v.r);
    const I h = v.k >> 1;
    const F s1 = pow2(h);
    return pow2(v.k - h) * madd(s1, em1, s1 - pow2(h - v.k));
  }
  // expm1Clamped's value for x in [-30, 20.5] or NaN (k in [-44, 30]) in fewer steps: there
  // 2^k is one normal factor, and 2^k (e^r - 1) + (2^k - 1) rounds as the scaled form does
  // (every step scaled by 2^(k-h), a power of two away from underflow and overflow): the same
  // bits.
  static TESSERA_VM_INLINE F expm1Moderate(const F& x) {
    const Reduced v = reduce(x);
    const F s = pow2(v.k);
    return madd(s, expm1Kernel(v.r), s - 1.f);
  }
  static TESSERA_VM_INLINE F expm1(const F& x) {
    const F y = expm1Clamped(atMost(atLeast(x, -30.f), 89.f));
    return select(x == 0.f, x, y);  // keeps the sign of zero
  }

  // --- log ----------------------------------------------------------------------------------
  // e ln2 + log(1 + f) for f in [sqrt(1/2) - 1, 1/2] and integer-valued e.
  static TESSERA_VM_INLINE F logKernel(const F& f, const F& e) {
    const F f2 = f * f;
    const F r = horner(f, 0.333334714f, -0.250010937f, 0.199913383f, -0.166076675f, 0.143897727f,
                       -0.134797364f, 0.116905011f, -0.0556821674f);
    F lo = madd(e, splat(kLn2Lo), f2 * f * r);
    lo = madd(f2, splat(-0.5f), lo);
    return madd(e, splat(kLn2Hi), f + lo);
  }
  static TESSERA_VM_INLINE F log(const F& x) {
    const I subnormal = x < 0x1p-126f;
    const F xs = select(subnormal, x * 0x1p23f, x);
    const U b = bits(xs) - 0x3f3504f3u;  // the bits of sqrt(1/2): m lands in [sqrt(1/2), sqrt(2))
    const I e = ((I)b >> 23) + (subnormal & -23);
    const F m = fromBits((b & 0x007fffffu) + 0x3f3504f3u);
    F y = logKernel(m - 1.f, __builtin_convertvector(e, F));
    y = select(x == kInf, x, y);
    y = select(x == 0.f, splat(-kInf), y);
    return select(x >= 0.f, y, splat(kNaN));  // negative or NaN
  }
  // log(1 + u) for u in [0, 1] or NaN.
  static TESSERA_VM_INLINE F log1pUnit(const F& u) {
    const I high = u > 0.5f;  // 1 + u = 2 (1 + f) with f = (u - 1) / 2, exact
    const F f = select(high, madd(u, splat(0.5f), splat(-0.5f)), u);
    return logKernel(f, select(high, splat(1.f), splat(0.f)));
  }

  // --- activations --------------------------------------------------------------------------
  static TESSERA_VM_INLINE F sigmoid(const F& x) {
    const F e = expNonPositive(atLeast(fromBits(bits(x) | 0x80000000u), -104.f));  // exp(-|x|)
    return select(x >= 0.f, splat(1.f), e) / (e + 1.f);
  }
  static TESSERA_VM_INLINE F tanh(const F& x) {
    const F z = x * x;
    const F small = madd(x, z * horner(z, -0.333332807f, 0.133314416f, -0.0537397079f, 0.0206390657f,
                                       -0.00570496218f), x);
    const F a = atMost(abs(x), 10.f);  // tanh(10) rounds to 1
    const F t = expm1Moderate(a + a);
    return copySign(select(a < 0.625f, small, t / (t + 2.f)), x);  // small(-0) is +0
  }
  static TESSERA_VM_INLINE F erf(const F& x) {
    const F a = abs(x);
    // x + x (2/sqrt(pi) - 1 + ...): the leading coefficient is not rounded to float.
    const F small = madd(x, horner(x * x, 0.128379151f, -0.376125515f, 0.112824552f, -0.0267914608f,
                                   0.00503217755f, -0.00062032335f), x);
    const F b = atMost(a, 4.f);
    const F logErfc = horner(b, -0.000133564929f, -1.12793612f, -0.636737168f, -0.104327574f,
                             0.0224202517f, -0.00309230085f, 0.000200997136f);
    // log(erfc) is below 0 on [0, 4], where exp's short form gives its bits in fewer steps.
    const F large = copySign(1.f - expNonPositive(logErfc), x);
    return select(a < 0.875f, small, large);
  }
  static TESSERA_VM_INLINE F softplus(const F& x) {
    const F u = expClamped(atLeast(-abs(x), -104.f));
    return select(x > 0.f, x, splat(0.f)) + log1pUnit(u);
  }
  // x >= 0 ? x : alpha (e^x - 1)
  static TESSERA_VM_INLINE F elu(const F& x, float alpha) {
    const F em1 = expm1Moderate(atMost(atLeast(x, -30.f), 0.f));
    return select(x >= 0.f, x, em1 * alpha);
  }
  static TESSERA_VM_INLINE F selu(const F& x, float alpha, float gamma) {
    const F em1 = expm1Moderate(atMost(atLeast(x, -30.f), 0.f));
    return select(x >= 0.f, x, em1 * alpha) * gamma;
  }
  static TESSERA_VM_INLINE F celu(const F& x, float alpha) {
    const F t = expm1Clamped(atMost(atLeast(x / alpha, -30.f), 89.f)) * alpha;
    const F y = select(x > 0.f, x, splat(0.f)) + select(t < 0.f, t, splat(0.f));
    return select(x != x, x, y);  // NaN, which the two selects above drop
  }
  // x * max(0, min(1, (x + 3) * (1/6))) with std::min / std::max's operand order, as
  // ops/UnaryMath.hpp computes it: the same IEEE operations in the same order give the same
  // bits on every path (a sum then a product: nothing a compiler could fuse).
  static TESSERA_VM_INLINE F hardSwish(const F& x) {
    const F t = (x + 3.f) * (1.f / 6.f);
    const F clipped = select(t < 1.f, t, splat(1.f));
    return x * select(clipped > 0.f, clipped, splat(0.f));
  }
};

// One function each, applied by mapLanes; `apply` is instantiated per lane type.
#define TESSERA_VM_OP(Name, expr)                                                  \
  struct Name {                                                                    \
    template <class L>                                                             \
    TESSERA_VM_INLINE typename L::F apply(const typename L::F& x) const { return expr; } \
  };
TESSERA_VM_OP(ExpOp, VecMath<L>::exp(x))
TESSERA_VM_OP(Expm1Op, VecMath<L>::expm1(x))
TESSERA_VM_OP(LogOp, VecMath<L>::log(x))
TESSERA_VM_OP(SigmoidOp, VecMath<L>::sigmoid(x))
TESSERA_VM_OP(TanhOp, VecMath<L>::tanh(x))
TESSERA_VM_OP(ErfOp, VecMath<L>::erf(x))
TESSERA_VM_OP(SoftplusOp, VecMath<L>::softplus(x))
TESSERA_VM_OP(GeluOp, x * VecMath<L>::splat(0.5f) * (VecMath<L>::splat(1.f) + VecMath<L>::erf(x * VecMath<L>::splat(0.70710678f))))
// GELU's tanh form: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
TESSERA_VM_OP(GeluTanhOp, x * VecMath<L>::splat(0.5f) *
                              (VecMath<L>::splat(1.f) +
                               VecMath<L>::tanh((x + x * x * x * VecMath<L>::splat(0.044715f)) *
                                                VecMath<L>::splat(0.7978845608f))))
#undef TESSERA_VM_OP

struct EluOp {
  float alpha;
  template <class L>
  TESSERA_VM_INLINE typename L::F apply(const typename L::F& x) const { return VecMath<L>::elu(x, alpha); }
};
struct SeluOp {
  float alpha, gamma;
  template <class L>
  TESSERA_VM_INLINE typename L::F apply(const typename L::F& x) const { return VecMath<L>::selu(x, alpha, gamma); }
};
struct SwishOp {
  float alpha;
  template <class L>
  TESSERA_VM_INLINE typename L::F apply(const typename L::F& x) const {
    return x * VecMath<L>::sigmoid(x * alpha);  // (a vector times a float: one broadcast, hoisted)
  }
};
struct SiluOp {  // SwishOp with alpha = 1 (YOLO's and EfficientNet's SiLU): no multiply by 1
  template <class L>
  TESSERA_VM_INLINE typename L::F apply(const typename L::F& x) const { return x * VecMath<L>::sigmoid(x); }
};
struct HardSwishOp {
  template <class L>
  TESSERA_VM_INLINE typename L::F apply(const typename L::F& x) const { return VecMath<L>::hardSwish(x); }
};
// Then * scale + shift, which the AVX paths may fuse into one multiply-add (C++ builds contract
// by default): one rounding where the scalar pass rounds twice.
struct HardSwishAffineOp {
  float scale, shift;
  template <class L>
  TESSERA_VM_INLINE typename L::F apply(const typename L::F& x) const {
    return VecMath<L>::hardSwish(x) * scale + shift;
  }
};
struct CeluOp {
  float alpha;
  template <class L>
  TESSERA_VM_INLINE typename L::F apply(const typename L::F& x) const { return VecMath<L>::celu(x, alpha); }
};

// y[i] = op(x[i]) for i < n, W lanes at a time, four vectors an iteration (their chains
// independent, for the scheduling CMakeLists.txt turns on here); the tail goes through a
// zero-padded buffer so nothing past n is read or written.
template <class L, class Op>
TESSERA_VM_INLINE void mapLanes(const float* x, float* y, int64_t n, const Op& op) {
  using M = VecMath<L>;
  constexpr int W = L::kWidth;
  int64_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    const typename L::F a = op.template apply<L>(M::load(x + i)), b = op.template apply<L>(M::load(x + i + W));
    const typename L::F c = op.template apply<L>(M::load(x + i + 2 * W)), d = op.template apply<L>(M::load(x + i + 3 * W));
    M::store(y + i, a), M::store(y + i + W, b), M::store(y + i + 2 * W, c), M::store(y + i + 3 * W, d);
  }
  for (; i + W <= n; i += W) M::store(y + i, op.template apply<L>(M::load(x + i)));
  if (i < n) {
    float buf[W] = {};
    std::memcpy(buf, x + i, static_cast<size_t>(n - i) * sizeof(float));
    M::store(buf, op.template apply<L>(M::load(buf)));
    std::memcpy(y + i, buf, static_cast<size_t>(n - i) * sizeof(float));
  }
}

// LSTM cell updates on V vectors of units from k: c = sigmoid(f) c + sigmoid(i) tanh(g), h =
// sigmoid(o) tanh(c).
template <class L, int V>
TESSERA_VM_INLINE void lstmCellVectors(const float* i, const float* o, const float* f, const float* g, float* c,
                                       float* h, int64_t k) {
  using M = VecMath<L>;
  constexpr int W = L::kWidth;
  typename L::F cell[V];
  for (int v = 0; v < V; ++v)
    cell[v] = M::sigmoid(M::load(f + k + v * W)) * M::load(c + k + v * W) +
              M::sigmoid(M::load(i + k + v * W)) * M::tanh(M::load(g + k + v * W));
  for (int v = 0; v < V; ++v) {
    M::store(c + k + v * W, cell[v]);
    M::store(h + k + v * W, M::sigmoid(M::load(o + k + v * W)) * M::tanh(cell[v]));
  }
}

template <class L>
TESSERA_VM_INLINE void lstmCellLanes(const float* i, const float* o, const float* f, const float* g, float* c,
                                     float* h, int64_t n) {
  constexpr int W = L::kWidth;
  int64_t k = 0;
  // Four vectors an iteration, their chains independent (one at a time: 4.18 -> 3.70 ns a unit,
  // AVX2, one thread, 32 rows of 128 units).
  for (; k + 4 * W <= n; k += 4 * W) lstmCellVectors<L, 4>(i, o, f, g, c, h, k);
  for (; k + W <= n; k += W) lstmCellVectors<L, 1>(i, o, f, g, c, h, k);
  if (k == n) return;
  // The tail through zero-padded buffers, as mapLanes does its own.
  float buf[6][W] = {};
  const size_t bytes = static_cast<size_t>(n - k) * sizeof(float);
  std::memcpy(buf[0], i + k, bytes), std::memcpy(buf[1], o + k, bytes), std::memcpy(buf[2], f + k, bytes);
  std::memcpy(buf[3], g + k, bytes), std::memcpy(buf[4], c + k, bytes);
  lstmCellVectors<L, 1>(buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], 0);
  std::memcpy(c + k, buf[4], bytes), std::memcpy(h + k, buf[5], bytes);
}

#ifdef TESSERA_VECTOR_MATH_X86
template <class Op>
__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,fma"))) void mapAvx512(const float* x, float* y,
                                                                                int64_t n, Op op) {
  mapLanes<Lanes<16, true>>(x, y, n, op);
}
template <class Op>
__attribute__((target("avx2,fma"))) void mapAvx2(const float* x, float* y, int64_t n, Op op) {
  mapLanes<Lanes<8, true>>(x, y, n, op);
}
__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,fma"))) void lstmCellAvx512(
    const float* i, const float* o, const float* f, const float* g, float* c, float* h, int64_t n) {
  lstmCellLanes<Lanes<16, true>>(i, o, f, g, c, h, n);
}
__attribute__((target("avx2,fma"))) void lstmCellAvx2(const float* i, const float* o, const float* f, const float* g,
                                                     float* c, float* h, int64_t n) {
  lstmCellLanes<Lanes<8, true>>(i, o, f, g, c, h, n);
}
#endif

template <class Op>
void map(const float* x, float* y, int64_t n, Op op) {
#ifdef TESSERA_VECTOR_MATH_X86
  switch (cpuIsa()) {
    case CpuIsa::kAvx512: return mapAvx512(x, y, n, op);
    case CpuIsa::kAvx2: return mapAvx2(x, y, n, op);
    case CpuIsa::kGeneric: break;
  }
#endif
  mapLanes<Lanes<4, false>>(x, y, n, op);
}

// Softmax's row passes, W lanes at a time over the whole vectors of a row; each instruction
// set's entry point below does the last partial vector (AVX-512 and AVX2 with masks, the
// portable path through a buffer). Through memcpy, as mapLanes does its tails, rows of 197 (a
// ViT's tokens) had taken 1.7x the time of rows of 192.
// These bodies hand their vectors back through pointers: a vector returned by value from a
// function without the caller's target attribute is an ABI change that Clang refuses.
template <class L>
TESSERA_VM_INLINE void maxBody(const float* x, int64_t n, typename L::F* max) {  // lane-wise, NaN ignored
  using M = VecMath<L>;
  typename L::F m = M::splat(-std::numeric_limits<float>::infinity());
  for (int64_t i = 0; i + L::kWidth <= n; i += L::kWidth) {
    const typename L::F v = M::load(x + i);
    m = m < v ? v : m;
  }
  *max = m;
}

template <class L>  // y = exp(x - shift), lane-wise sums of y
TESSERA_VM_INLINE void expShiftedSumBody(const float* x, float* y, int64_t n, float shift, typename L::F* sum) {
  using M = VecMath<L>;
  const typename L::F s = M::splat(shift);
  constexpr int W = L::kWidth;
  typename L::F total = M::splat(0.f);
  int64_t i = 0;
  // Four exps an iteration, their chains independent (as mapLanes does), summed in order.
  for (; i + 4 * W <= n; i += 4 * W) {
    const typename L::F a = M::expAtMostZero(M::load(x + i) - s), b = M::expAtMostZero(M::load(x + i + W) - s);
    const typename L::F c = M::expAtMostZero(M::load(x + i + 2 * W) - s);
    const typename L::F d = M::expAtMostZero(M::load(x + i + 3 * W) - s);
    M::store(y + i, a), M::store(y + i + W, b), M::store(y + i + 2 * W, c), M::store(y + i + 3 * W, d);
    total += a, total += b, total += c, total += d;
  }
  for (; i + W <= n; i += W) {
    const typename L::F e = M::expAtMostZero(M::load(x + i) - s);
    M::store(y + i, e);
    total += e;
  }
  *sum = total;
}

template <class L>  // *v = exp(*v - shift), for the masked tails
TESSERA_VM_INLINE void expShiftedInPlace(typename L::F* v, float shift) {
  *v = VecMath<L>::expAtMostZero(*v - VecMath<L>::splat(shift));
}

template <class L>
TESSERA_VM_INLINE void scaleBody(float* y, int64_t n, float scale) {
  using M = VecMath<L>;
  const typename L::F s = M::splat(scale);
  for (int64_t i = 0; i + L::kWidth <= n; i += L::kWidth) M::store(y + i, M::load(y + i) * s);
}

template <class L>
TESSERA_VM_INLINE float maxOfLanes(const typename L::F& v) {
  float best = -std::numeric_limits<float>::infinity();
  for (int j = 0; j < L::kWidth; ++j) best = std::max(best, v[j]);
  return best;
}

template <class L>
TESSERA_VM_INLINE float sumOfLanes(const typename L::F& v) {
  float total = 0.f;
  for (int j = 0; j < L::kWidth; ++j) total += v[j];
  return total;
}

#ifdef TESSERA_VECTOR_MATH_X86
#define TESSERA_VM_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,fma")))
#define TESSERA_VM_AVX2 __attribute__((target("avx2,fma")))
using L512 = Lanes<16, true>;
using L256 = Lanes<8, true>;
using F512 = L512::F;
using F256 = L256::F;

TESSERA_VM_AVX512 float rowMaxAvx512(const float* x, int64_t n) {
  F512 m;
  maxBody<L512>(x, n, &m);
  if (const int64_t i = n / 16 * 16; i < n) {
    const F512 v = (F512)_mm512_mask_loadu_ps(_mm512_set1_ps(-std::numeric_limits<float>::infinity()),
                                              static_cast<__mmask16>((1u << (n - i)) - 1), x + i);
    m = m < v ? v : m;
  }
  return maxOfLanes<L512>(m);
}
TESSERA_VM_AVX512 float expShiftedSumAvx512(const float* x, float* y, int64_t n, float shift) {
  F512 sum;
  expShiftedSumBody<L512>(x, y, n, shift, &sum);
  if (const int64_t i = n / 16 * 16; i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    F512 e = (F512)_mm512_maskz_loadu_ps(m, x + i);
    expShiftedInPlace<L512>(&e, shift);
    _mm512_mask_storeu_ps(y + i, m, (__m512)e);
    sum += (F512)_mm512_maskz_mov_ps(m, (__m512)e);
  }
  return sumOfLanes<L512>(sum);
}
TESSERA_VM_AVX512 void scaleAvx512(float* y, int64_t n, float s) {
  scaleBody<L512>(y, n, s);
  if (const int64_t i = n / 16 * 16; i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, y + i), _mm512_set1_ps(s)));
  }
}

// AVX2's lanes below `count` (8 and more: all).
TESSERA_VM_AVX2 inline __m256i laneMask256(int64_t count) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
TESSERA_VM_AVX2 float rowMaxAvx2(const float* x, int64_t n) {
  F256 m;
  maxBody<L256>(x, n, &m);
  if (const int64_t i = n / 8 * 8; i < n) {
    const __m256i k = laneMask256(n - i);
    const F256 v = (F256)_mm256_blendv_ps(_mm256_set1_ps(-std::numeric_limits<float>::infinity()),
                                          _mm256_maskload_ps(x + i, k), _mm256_castsi256_ps(k));
    m = m < v ? v : m;
  }
  return maxOfLanes<L256>(m);
}
TESSERA_VM_AVX2 float expShiftedSumAvx2(const float* x, float* y, int64_t n, float shift) {
  F256 sum;
  expShiftedSumBody<L256>(x, y, n, shift, &sum);
  if (const int64_t i = n / 8 * 8; i < n) {
    const __m256i k = laneMask256(n - i);
    F256 e = (F256)_mm256_maskload_ps(x + i, k);
    expShiftedInPlace<L256>(&e, shift);
    _mm256_maskstore_ps(y + i, k, (__m256)e);
    sum += (F256)_mm256_and_ps((__m256)e, _mm256_castsi256_ps(k));
  }
  return sumOfLanes<L256>(sum);
}
TESSERA_VM_AVX2 void scaleAvx2(float* y, int64_t n, float s) {
  scaleBody<L256>(y, n, s);
  if (const int64_t i = n / 8 * 8; i < n) {
    const __m256i k = laneMask256(n - i);
    _mm256_maskstore_ps(y + i, k, _mm256_mul_ps(_mm256_maskload_ps(y + i, k), _mm256_set1_ps(s)));
  }
}
#undef TESSERA_VM_AVX512
#undef TESSERA_VM_AVX2
#endif

}  // namespace

float vectorMax(const float* x, int64_t n) {
#ifdef TESSERA_VECTOR_MATH_X86
  switch (cpuIsa()) {
    case CpuIsa::kAvx512: return rowMaxAvx512(x, n);
    case CpuIsa::kAvx2: return rowMaxAvx2(x, n);
    case CpuIsa::kGeneric: break;
  }
#endif
  using L4 = Lanes<4, false>;
  L4::F lanes;
  maxBody<L4>(x, n, &lanes);
  float best = maxOfLanes<L4>(lanes);
  for (int64_t i = n / 4 * 4; i < n; ++i) best = std::max(best, x[i]);
  return best;
}

float vectorExpShiftedSum(const float* x, float* y, int64_t n, float shift) {
#ifdef TESSERA_VECTOR_MATH_X86
  switch (cpuIsa()) {
    case CpuIsa::kAvx512: return expShiftedSumAvx512(x, y, n, shift);
    case CpuIsa::kAvx2: return expShiftedSumAvx2(x, y, n, shift);
    case CpuIsa::kGeneric: break;
  }
#endif
  using L4 = Lanes<4, false>;
  L4::F lanes;
  expShiftedSumBody<L4>(x, y, n, shift, &lanes);
  float total = sumOfLanes<L4>(lanes);
  if (const int64_t i = n / 4 * 4; i < n) {  // the exponentials as the vectors compute them
    float buf[4] = {};
    std::memcpy(buf, x + i, static_cast<size_t>(n - i) * sizeof(float));
    expShiftedSumBody<L4>(buf, buf, 4, shift, &lanes);
    std::memcpy(y + i, buf, static_cast<size_t>(n - i) * sizeof(float));
    for (int64_t j = 0; j < n - i; ++j) total += buf[j];
  }
  return total;
}

void vectorScale(float* y, int64_t n, float scale) {
#ifdef TESSERA_VECTOR_MATH_X86
  switch (cpuIsa()) {
    case CpuIsa::kAvx512: return scaleAvx512(y, n, scale);
    case CpuIsa::kAvx2: return scaleAvx2(y, n, scale);
    case CpuIsa::kGeneric: break;
  }
#endif
  scaleBody<Lanes<4, false>>(y, n, scale);
  for (int64_t i = n / 4 * 4; i < n; ++i) y[i] *= scale;
}

void vectorExp(const float* x, float* y, int64_t n) { map(x, y, n, ExpOp{}); }
void vectorExpm1(const float* x, float* y, int64_t n) { map(x, y, n, Expm1Op{}); }
void vectorLog(const float* x, float* y, int64_t n) { map(x, y, n, LogOp{}); }
void vectorSigmoid(const float* x, float* y, int64_t n) { map(x, y, n, SigmoidOp{}); }
void vectorTanh(const float* x, float* y, int64_t n) { map(x, y, n, TanhOp{}); }
void vectorErf(const float* x, float* y, int64_t n) { map(x, y, n, ErfOp{}); }
void vectorGelu(const float* x, float* y, int64_t n) { map(x, y, n, GeluOp{}); }
void vectorGeluTanh(const float* x, float* y, int64_t n) { map(x, y, n, GeluTanhOp{}); }
void vectorSoftplus(const float* x, float* y, int64_t n) { map(x, y, n, SoftplusOp{}); }
void vectorElu(const float* x, float* y, int64_t n, float alpha) { map(x, y, n, EluOp{alpha}); }
void vectorSelu(const float* x, float* y, int64_t n, float alpha, float gamma) {
  map(x, y, n, SeluOp{alpha, gamma});
}
void vectorCelu(const float* x, float* y, int64_t n, float alpha) { map(x, y, n, CeluOp{alpha}); }
void vectorSwish(const float* x, float* y, int64_t n, float alpha) {
  if (alpha == 1.f) return map(x, y, n, SiluOp{});
  map(x, y, n, SwishOp{alpha});
}
void vectorHardSwish(const float* x, float* y, int64_t n) { map(x, y, n, HardSwishOp{}); }
void vectorHardSwishAffine(const float* x, float* y, int64_t n, float scale, float shift) {
  map(x, y, n, HardSwishAffineOp{scale, shift});
}

void vectorLstmCell(const float* i, const float* o, const float* f, const float* g, float* c, float* h,
                    int64_t n) {
#ifdef TESSERA_VECTOR_MATH_X86
  switch (cpuIsa()) {
    case CpuIsa::kAvx512: return lstmCellAvx512(i, o, f, g, c, h, n);
    case CpuIsa::kAvx2: return lstmCellAvx2(i, o, f, g, c, h, n);
    case CpuIsa::kGeneric: break;
  }
#endif
  lstmCellLanes<Lanes<4, false>>(i, o, f, g, c, h, n);
}

}  // namespace tessera
