// The vectorised transcendentals (backends/cpu/VectorMath.hpp) against double-precision libm,
// over the whole float range: every 4099th bit pattern (all exponents, both signs, NaNs and
// infinities included), a dense sweep where the function is neither constant nor trivially
// x, and the special values. Errors are in ulps of the correctly rounded result (a subnormal
// result's ulp is 2^-149) and relative (for normal results); the bounds below are the
// measured maxima (docs/cpu-vector-math.md) with a little room. A result that should be inf,
// NaN or a signed zero must be exactly that.
//
// The path tested is the one cpuIsa() chose for this process; the CTests cpu_isa_<isa>_ops
// run this suite again under TESSERA_CPU_ISA=avx512, avx2 and generic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/CpuIsa.hpp"
#include "backends/cpu/VectorMath.hpp"

namespace tessera {
namespace {

using ArrayFn = std::function<void(const float*, float*, int64_t)>;
using Reference = std::function<double(double)>;

float fromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// The spacing of floats at the correctly rounded value of r.
double ulpAt(double r) {
  const double a = std::fabs(r);
  if (a < FLT_MIN) return std::ldexp(1.0, -149);
  int e;
  std::frexp(std::min(a, static_cast<double>(FLT_MAX)), &e);
  return std::ldexp(1.0, e - 24);
}

// Every 4099th bit pattern, every `denseStride`-th one in [lo, hi] (small magnitudes, both
// signs when lo < 0), 2^20 + 1 evenly spaced values from lo to hi, and the specials.
std::vector<float> sweepInputs(uint32_t denseStride, float lo, float hi) {
  std::vector<float> x;
  for (uint64_t b = 0; b <= 0xffffffffu; b += 4099) x.push_back(fromBits(static_cast<uint32_t>(b)));
  for (float start : {std::max(lo, 0.f), std::min(hi, -0.f)}) {
    uint32_t b;
    std::memcpy(&b, &start, sizeof b);
    const float end = start < 0.f || std::signbit(start) ? lo : hi;
    for (;; b += denseStride) {
      const float v = fromBits(b);
      if (!(std::fabs(v) <= std::fabs(end))) break;
      x.push_back(v);
    }
  }
  constexpr int kEven = 1 << 20;
  for (int i = 0; i <= kEven; ++i) x.push_back(static_cast<float>(lo + (double(hi) - lo) * i / kEven));
  const float specials[] = {0.f, -0.f, 1.f, -1.f, 0.5f, -0.5f, 2.f, -2.f, FLT_MIN, -FLT_MIN,
                            fromBits(1), fromBits(0x80000001u), fromBits(0x007fffffu), FLT_MAX, -FLT_MAX,
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                            // exp's overflow and underflow edges, log(2^k), erf's and tanh's rounding to 1
                            88.72283f, fromBits(0x42b17217u), fromBits(0x42b17218u), 89.f, -87.33654f,
                            -103.9720840f, -103.9720916f, -104.f, -150.f, 0.34657359f, -0.34657359f, 3.8325f,
                            3.92f, 9.01f, 10.f, 1e-30f, -1e-30f, 1e-10f, 0x1p-126f, 0x1p64f};
  x.insert(x.end(), std::begin(specials), std::end(specials));
  return x;
}

struct Measured {
  double maxUlp = 0, maxRel = 0;
  float worstUlpAt = 0, worstRelAt = 0;
};

// Runs fn on the sweep, checks every special-valued result exactly and returns the errors.
Measured measure(const std::string& name, const ArrayFn& fn, const Reference& ref, uint32_t denseStride, float lo,
                 float hi) {
  const std::vector<float> x = sweepInputs(denseStride, lo, hi);
  std::vector<float> y(x.size());
  const auto t0 = std::chrono::steady_clock::now();
  fn(x.data(), y.data(), static_cast<int64_t>(x.size()));
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  Measured m;
  int failures = 0;
  for (size_t i = 0; i < x.size() && failures < 10; ++i) {
    const double r = ref(static_cast<double>(x[i]));
    const float r32 = static_cast<float>(r);
    const bool special = std::isnan(r) || std::isinf(r32) || r == 0.0;
    if (special || std::isnan(y[i]) || std::isinf(y[i])) {
      const bool same = std::isnan(r) ? std::isnan(y[i]) : (y[i] == r32 && std::signbit(y[i]) == std::signbit(r32));
      if (!same) {
        ++failures;
        ADD_FAILURE() << name << " at " << x[i] << ") = " << y[i] << ", expected " << r32;
      }
      continue;
    }
    const double err = std::fabs(static_cast<double>(y[i]) - r);
    const double ulps = err / ulpAt(r);
    if (ulps > m.maxUlp) m.maxUlp = ulps, m.worstUlpAt = x[i];
    if (std::fabs(r) >= FLT_MIN && err / std::fabs(r) > m.maxRel) m.maxRel = err / std::fabs(r), m.worstRelAt = x[i];
  }
  std::printf("%-16s %-7s max %.3f ulp (x = %.9g), max relative %.3g (x = %.9g); %zu inputs, %.2f ns each\n", name.c_str(),
              cpuIsaName(cpuIsa()), m.maxUlp, m.worstUlpAt, m.maxRel, m.worstRelAt, x.size(),
              ns / static_cast<double>(x.size()));
  return m;
}

void expectAccurate(const std::string& name, const ArrayFn& fn, const Reference& ref, uint32_t denseStride, float lo,
                    float hi, double maxUlp, double maxRel) {
  const Measured m = measure(name, fn, ref, denseStride, lo, hi);
  EXPECT_LE(m.maxUlp, maxUlp) << name << " at x = " << m.worstUlpAt;
  EXPECT_LE(m.maxRel, maxRel) << name << " at x = " << m.worstRelAt;
}

double sigmoidRef(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }
double softplusRef(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }

// Dense strides: a few hundred thousand bit patterns in each range.
TEST(VectorMath, ExpMatchesLibm) {
  expectAccurate("exp", vectorExp, [](double x) { return std::exp(x); }, 4096, -104.f, 89.f, 1.5, 1.0e-7);
}

TEST(VectorMath, Expm1MatchesLibm) {
  expectAccurate("expm1", vectorExpm1, [](double x) { return std::expm1(x); }, 4096, -20.f, 89.f, 2.0, 1.5e-7);
}

TEST(VectorMath, LogMatchesLibm) {
  expectAccurate("log", vectorLog, [](double x) { return std::log(x); }, 2048, 0.f, 4.f, 1.5, 1.0e-7);
}

TEST(VectorMath, SigmoidMatchesLibm) {
  expectAccurate("sigmoid", vectorSigmoid, sigmoidRef, 4096, -104.f, 20.f, 3.0, 2.0e-7);
}

TEST(VectorMath, TanhMatchesLibm) {
  expectAccurate("tanh", vectorTanh, [](double x) { return std::tanh(x); }, 4096, -10.f, 10.f, 2.0, 1.5e-7);
}

TEST(VectorMath, ErfMatchesLibm) {
  expectAccurate("erf", vectorErf, [](double x) { return std::erf(x); }, 4096, -4.f, 4.f, 2.0, 1.5e-7);
}

TEST(VectorMath, SoftplusMatchesLibm) {
  expectAccurate("softplus", vectorSoftplus, softplusRef, 4096, -104.f, 20.f, 2.0, 1.5e-7);
}

TEST(VectorMath, EluSeluCeluMatchTheirDefinitions) {
  for (float alpha : {1.f, 0.5f, 2.5f}) {
    const std::string a = "(alpha " + std::to_string(alpha).substr(0, 3) + ")";
    expectAccurate(
        "elu" + a, [alpha](const float* x, float* y, int64_t n) { vectorElu(x, y, n, alpha); },
        [alpha](double x) { return x >= 0 ? x : alpha * std::expm1(x); }, 4096, -30.f, 1.f, 2.5, 2.0e-7);
    expectAccurate(
        "celu" + a, [alpha](const float* x, float* y, int64_t n) { vectorCelu(x, y, n, alpha); },
        [alpha](double x) {
          return std::isnan(x) ? x : std::max(0.0, x) + std::min(0.0, alpha * std::expm1(x / alpha));
        }, 4096, -30.f,
        1.f, 3.0, 2.5e-7);
  }
  const float alpha = 1.67326319217681884765625f, gamma = 1.05070102214813232421875f;
  expectAccurate(
      "selu", [&](const float* x, float* y, int64_t n) { vectorSelu(x, y, n, alpha, gamma); },
      [&](double x) { return gamma * (x >= 0 ? x : alpha * std::expm1(x)); }, 4096, -30.f, 1.f, 3.0, 2.5e-7);
}

// HardSwish gives the scalar formula's bits (the HardSwish op and a conv's fused pass compute
// it so), and its affine form is the exact value rounded once (fused, on the AVX paths) or
// twice (the product, then the sum), over every 4099th bit pattern and a dense sweep of [-8, 8].
TEST(VectorMath, HardSwishIsTheScalarFormula) {
  const std::vector<float> x = sweepInputs(4096, -8.f, 8.f);
  std::vector<float> y(x.size()), yAffine(x.size());
  const float scale = 1.3f, shift = -0.2f;
  vectorHardSwish(x.data(), y.data(), static_cast<int64_t>(x.size()));
  vectorHardSwishAffine(x.data(), yAffine.data(), static_cast<int64_t>(x.size()), scale, shift);
  for (size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    const float h = v * std::max(0.f, std::min(1.f, (v + 3.f) * (1.f / 6.f)));
    ASSERT_TRUE(std::memcmp(&y[i], &h, sizeof h) == 0 || (std::isnan(y[i]) && std::isnan(h)))
        << "hardswish(" << v << ") = " << y[i] << ", scalar " << h << " (" << cpuIsaName(cpuIsa()) << ")";
    const double exact = static_cast<double>(h) * scale + shift;
    if (std::isnan(exact)) {
      ASSERT_TRUE(std::isnan(yAffine[i])) << "affine hardswish(" << v << ") = " << yAffine[i];
      continue;
    }
    if (std::fabs(exact) >= FLT_MAX) {  // rounds to inf, or to FLT_MAX along the other path
      ASSERT_TRUE(std::isinf(yAffine[i]) || std::fabs(yAffine[i]) == FLT_MAX)
          << "affine hardswish(" << v << ") = " << yAffine[i] << ", exact " << exact;
      continue;
    }
    // Fused: one rounding of the exact value; unfused: the product's rounding, then the sum's.
    const double bound = ulpAt(exact) + ulpAt(static_cast<double>(h) * scale);
    ASSERT_LE(std::fabs(yAffine[i] - exact), bound)
        << "affine hardswish(" << v << ") = " << yAffine[i] << ", exact " << exact;
  }
}

// Lengths 0..40 at every offset into a guarded buffer (the tail path), in place too: nothing
// outside [0, n) is touched and every element equals what one long call gives.
// Gelu, x/2 (1 + erf(x / sqrt 2)), against double precision from -12 to 12 and at the
// specials: within 4 ulps of the result, plus erf's own error (a few 1e-8) times x/2 where
// 1 + erf cancels (x negative).
TEST(VectorMath, GeluMatchesItsDefinition) {
  std::vector<float> x;
  for (int i = -120000; i <= 120000; ++i) x.push_back(static_cast<float>(i) * 1e-4f);
  std::vector<float> y(x.size());
  vectorGelu(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i], want = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    ASSERT_NEAR(y[i], want, 4 * ulpAt(want) + 1e-7 * std::fabs(v)) << "x " << x[i];
  }
  const float specials[] = {0.f, -0.f, std::numeric_limits<float>::infinity(), -40.f,
                            std::numeric_limits<float>::quiet_NaN()};
  float out[5];
  vectorGelu(specials, out, 5);
  EXPECT_EQ(out[0], 0.f);
  EXPECT_EQ(out[2], std::numeric_limits<float>::infinity());
  EXPECT_EQ(out[3], 0.f);
  EXPECT_TRUE(std::isnan(out[4]));
}

// Swish, x sigmoid(alpha x): a conv's fused activation (FuseConvSwish), alpha 1 (SiLU), 1.702
// (QuickGELU) or any other; one rounding on top of the sigmoid's.
TEST(VectorMath, SwishMatchesItsDefinition) {
  std::vector<float> x;
  for (int i = -150000; i <= 150000; ++i) x.push_back(static_cast<float>(i) * 1e-4f);
  std::vector<float> y(x.size());
  for (float alpha : {1.f, 1.702f, -0.7f}) {
    vectorSwish(x.data(), y.data(), static_cast<int64_t>(x.size()), alpha);
    for (size_t i = 0; i < x.size(); ++i) {
      const double v = x[i], want = v * sigmoidRef(static_cast<double>(alpha * x[i]));
      ASSERT_NEAR(y[i], want, 4 * ulpAt(want)) << "x " << x[i] << ", alpha " << alpha;
    }
  }
  const float specials[] = {0.f, -0.f, std::numeric_limits<float>::infinity(), -200.f,
                            std::numeric_limits<float>::quiet_NaN()};
  float out[5];
  vectorSwish(specials, out, 5, 1.f);
  EXPECT_EQ(out[0], 0.f);
  EXPECT_EQ(out[2], std::numeric_limits<float>::infinity());
  EXPECT_EQ(out[3], -0.f);
  EXPECT_TRUE(std::isnan(out[4]));
}

TEST(VectorMath, TailsStayInBoundsAndMatchTheBody) {
  const ArrayFn fns[] = {vectorExp, vectorExpm1, vectorLog, vectorSigmoid, vectorTanh, vectorErf, vectorSoftplus,
                         vectorHardSwish, vectorGelu, [](const float* x, float* y, int64_t n) { vectorElu(x, y, n, 1.f); },
                         [](const float* x, float* y, int64_t n) { vectorSwish(x, y, n, 1.702f); },
                         [](const float* x, float* y, int64_t n) { vectorSwish(x, y, n, 1.f); }};  // SiLU's own path
  constexpr int kGuard = 32, kMax = 40;
  std::vector<float> in(kMax + 2 * kGuard);
  for (size_t i = 0; i < in.size(); ++i) in[i] = 0.37f * static_cast<float>(i) - 9.f;
  for (const ArrayFn& fn : fns) {
    std::vector<float> whole(in.size());
    fn(in.data(), whole.data(), static_cast<int64_t>(in.size()));
    for (int n = 0; n <= kMax; ++n) {
      for (int offset : {kGuard, kGuard + 1, kGuard + 3}) {
        std::vector<float> out(in.size(), -12345.f);
        fn(in.data() + offset, out.data() + offset, n);
        std::vector<float> inPlace = in;
        fn(inPlace.data() + offset, inPlace.data() + offset, n);
        for (int i = 0; i < static_cast<int>(in.size()); ++i) {
          const bool inside = i >= offset && i < offset + n;
          ASSERT_EQ(out[i], inside ? whole[i] : -12345.f) << "n " << n << " offset " << offset << " i " << i;
          ASSERT_EQ(inPlace[i], inside ? whole[i] : in[i]) << "n " << n << " offset " << offset << " i " << i;
        }
      }
    }
  }
}

// The fused LSTM cell, every length 0..70 (four-vector bodies of AVX2 and AVX-512, single
// vectors and tails) at three alignments: c and h
// within a rounding or two of the cell computed from vectorSigmoid's and vectorTanh's values
// (the AVX paths may fuse c's products and sum), nothing outside [0, n) touched.
TEST(VectorMath, LstmCellMatchesItsParts) {
  constexpr int kGuard = 16, kMax = 70, kSize = kMax + 2 * kGuard;
  std::vector<float> gates[4];
  for (int g = 0; g < 4; ++g)
    for (int k = 0; k < kSize; ++k) gates[g].push_back(std::sin(0.9f * static_cast<float>(k) + 1.3f * g) * 7.f);
  std::vector<float> cell(kSize);
  for (int k = 0; k < kSize; ++k) cell[k] = std::cos(0.7f * static_cast<float>(k)) * 3.f;
  std::vector<float> sigmoid[3], tanhG(kSize);
  for (int g = 0; g < 3; ++g) {
    sigmoid[g].resize(kSize);
    vectorSigmoid(gates[g].data(), sigmoid[g].data(), kSize);
  }
  vectorTanh(gates[3].data(), tanhG.data(), kSize);
  for (int n = 0; n <= kMax; ++n)
    for (int offset : {kGuard, kGuard + 1, kGuard + 3}) {
      std::vector<float> c = cell, h(kSize, -12345.f);
      vectorLstmCell(gates[0].data() + offset, gates[1].data() + offset, gates[2].data() + offset,
                     gates[3].data() + offset, c.data() + offset, h.data() + offset, n);
      for (int k = 0; k < kSize; ++k) {
        if (k < offset || k >= offset + n) {
          ASSERT_EQ(c[k], cell[k]) << "n " << n << " offset " << offset << " k " << k;
          ASSERT_EQ(h[k], -12345.f) << "n " << n << " offset " << offset << " k " << k;
          continue;
        }
        // i o f g: gate 0 is i, 1 o, 2 f.
        const double wantC = static_cast<double>(sigmoid[2][k]) * cell[k] + static_cast<double>(sigmoid[0][k]) * tanhG[k];
        ASSERT_NEAR(c[k], wantC, 2 * ulpAt(wantC) + 1e-7) << "n " << n << " k " << k;
        float tanhC = 0.f;
        vectorTanh(&c[k], &tanhC, 1);
        const double wantH = static_cast<double>(sigmoid[1][k]) * tanhC;
        ASSERT_NEAR(h[k], wantH, ulpAt(wantH)) << "n " << n << " k " << k;
      }
    }
}

// Softmax's row passes, every length 0..70 (bodies and tails) at three alignments: the max is
// exactly the largest value (NaN ignored, -inf for none); the exponentials are vectorExp's of
// x - shift (y may be x) and their sum is theirs to float rounding; the scale touches y[0, n)
// only.
TEST(VectorMath, SoftmaxRowPasses) {
  constexpr int kGuard = 16, kMax = 70;
  std::vector<float> in(kMax + 2 * kGuard);
  for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(1.7f * static_cast<float>(i)) * 9.f;
  EXPECT_EQ(vectorMax(in.data(), 0), -std::numeric_limits<float>::infinity());
  for (int n = 1; n <= kMax; ++n)
    for (int offset : {kGuard, kGuard + 1, kGuard + 3}) {
      const float* x = in.data() + offset;
      const float want = *std::max_element(x, x + n);
      ASSERT_EQ(vectorMax(x, n), want) << "n " << n;
      std::vector<float> withNan(x, x + n);
      withNan[n / 2] = std::numeric_limits<float>::quiet_NaN();
      float rest = -std::numeric_limits<float>::infinity();
      for (int i = 0; i < n; ++i)
        if (i != n / 2) rest = std::max(rest, x[i]);
      ASSERT_EQ(vectorMax(withNan.data(), n), rest) << "NaN at " << n / 2 << " of " << n;

      std::vector<float> shifted(x, x + n), expected(n), out(in.size(), -12345.f);
      for (float& v : shifted) v -= want;
      vectorExp(shifted.data(), expected.data(), n);
      const float sum = vectorExpShiftedSum(x, out.data() + offset, n, want);
      double reference = 0;
      for (int i = 0; i < static_cast<int>(in.size()); ++i) {
        const bool inside = i >= offset && i < offset + n;
        if (inside) reference += expected[i - offset];
        ASSERT_EQ(out[i], inside ? expected[i - offset] : -12345.f) << "n " << n << " i " << i;
      }
      ASSERT_NEAR(sum, reference, 1e-6 * reference * n) << "n " << n;
      std::vector<float> inPlace(x, x + n);
      ASSERT_EQ(vectorExpShiftedSum(inPlace.data(), inPlace.data(), n, want), sum);
      ASSERT_EQ(inPlace, std::vector<float>(expected.begin(), expected.end()));

      vectorScale(out.data() + offset, n, 0.5f);
      for (int i = 0; i < static_cast<int>(in.size()); ++i) {
        const bool inside = i >= offset && i < offset + n;
        ASSERT_EQ(out[i], inside ? expected[i - offset] * 0.5f : -12345.f) << "n " << n << " i " << i;
      }
    }
}

}  // namespace
}  // namespace tessera
