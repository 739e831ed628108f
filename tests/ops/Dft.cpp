// DFT and STFT against a direct O(n^2) DFT in double: lengths 1, 2, odd, prime, powers of
// two and ones long enough for Bluestein; real and complex input; every signal axis
// (positive and negative); inverse and onesided; dft_length shorter and longer than the
// signal; f32 and f64. STFT with and without a window, both onesided values, complex
// signals. Bad shapes and inputs fail naming the node.
#include <gtest/gtest.h>

#include <cmath>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

constexpr double kPi = 3.14159265358979323846;
Tensor none() { return Tensor(Shape{}, DataType::kUnknown); }  // an omitted input

double valueAt(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kF64 ? t.data<double>()[i] : t.data<float>()[i];
}

void setValue(Tensor& t, int64_t i, double v) {
  if (t.dtype() == DataType::kF64) t.data<double>()[i] = v;
  else t.data<float>()[i] = static_cast<float>(v);
}

Tensor randomOf(const Shape& shape, uint32_t seed, DataType dt) {
  const Tensor f = randomTensor(shape, seed);
  Tensor t = Tensor::hostAllocate(shape, dt);
  for (int64_t i = 0; i < t.elementCount(); ++i) setValue(t, i, f.data<float>()[i]);
  return t;
}

// The DFT of x [.., n, .., C] along `axis` (>= 0), straight from the definition.
Tensor dftReference(const Tensor& x, int64_t axis, bool inverse, bool onesided, int64_t L) {
  const Shape& s = x.shape();
  const int64_t rank = x.rank(), C = s[rank - 1], n = s[axis];
  Shape outShape = s;
  outShape[axis] = onesided ? L / 2 + 1 : L;
  outShape[rank - 1] = 2;
  Tensor y = Tensor::hostAllocate(outShape, x.dtype());
  const double sign = inverse ? 1 : -1;
  for (int64_t o = 0; o < y.elementCount() / 2; ++o) {
    std::vector<int64_t> idx = unravelIndex(o * 2, outShape);
    const int64_t k = idx[axis];
    double re = 0, im = 0;
    for (int64_t j = 0; j < std::min(n, L); ++j) {
      idx[axis] = j;
      idx[rank - 1] = 0;
      const double xr = valueAt(x, ravelIndex(idx, s));
      idx[rank - 1] = 1;
      const double xi = C == 2 ? valueAt(x, ravelIndex(idx, s)) : 0.0;
      const double angle = sign * 2 * kPi * static_cast<double>((j * k) % L) / L;
      re += xr * std::cos(angle) - xi * std::sin(angle);
      im += xr * std::sin(angle) + xi * std::cos(angle);
    }
    const double scale = inverse ? 1.0 / L : 1.0;
    setValue(y, o * 2, re * scale);
    setValue(y, o * 2 + 1, im * scale);
  }
  return y;
}

double rtolFor(DataType dt) { return dt == DataType::kF64 ? 1e-9 : 1e-4; }
double atolFor(DataType dt, int64_t L) { return (dt == DataType::kF64 ? 1e-11 : 3e-6) * (L + 1); }

TEST(DftOp, OneDimensionalLengthsAgainstNaive) {
  uint32_t seed = 1;
  for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 32, 33, 37, 64, 100, 127, 128, 257}) {
    for (int64_t C : {1, 2}) {
      for (DataType dt : {DataType::kF32, DataType::kF64}) {
        for (int mode = 0; mode < 4; ++mode) {
          const bool inverse = mode & 1, onesided = mode & 2;
          const Tensor x = randomOf({2, n, C}, seed++, dt);
          Attributes a;
          a.setInt("inverse", inverse);
          a.setInt("onesided", onesided);
          const std::string what = "n " + std::to_string(n) + " C " + std::to_string(C) + " mode " +
                                   std::to_string(mode) + " " + dataTypeName(dt);
          OpRun r = runOp("DFT", {x}, a, 1, BackendType::kCPU);
          ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
          EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
          expectClose(r.outputs[0], dftReference(x, 1, inverse, onesided, n), rtolFor(dt), atolFor(dt, n), what);
        }
      }
    }
  }
}

TEST(DftOp, EveryAxisAndDftLength) {
  uint32_t seed = 500;
  const Shape shape = {2, 5, 4, 3, 2};
  for (int64_t axis : {1, 2, 3, -2, -3, -4}) {
    const int64_t a = axis < 0 ? axis + 5 : axis;
    for (int64_t L : {int64_t{0}, int64_t{1}, shape[a] - 1, shape[a] + 3, int64_t{16}, int64_t{19}}) {
      if (L == 0 && axis < 0) continue;  // the default length is covered by the positive axes
      for (bool inverse : {false, true}) {
        for (bool onesided : {false, true}) {
          const Tensor x = randomOf(shape, seed++, DataType::kF32);
          Attributes attrs;
          attrs.setInt("axis", axis);
          attrs.setInt("inverse", inverse);
          attrs.setInt("onesided", onesided);
          std::vector<Tensor> in = {x};
          if (L > 0) in.push_back(tensorFromInts({}, {L}));
          const int64_t length = L > 0 ? L : shape[a];
          const std::string what = "axis " + std::to_string(axis) + " L " + std::to_string(L) +
                                   (inverse ? " inverse" : "") + (onesided ? " onesided" : "");
          OpRun r = runOp("DFT", in, attrs, 1, BackendType::kCPU);
          ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
          expectClose(r.outputs[0], dftReference(x, a, inverse, onesided, length), 1e-4,
                      atolFor(DataType::kF32, length), what);
        }
      }
    }
  }
}

// STFT of signal [batch, length, C]: frame f is samples [f*step, f*step + F) times the window.
Tensor stftReference(const Tensor& x, int64_t step, const Tensor* window, int64_t F, bool onesided) {
  const int64_t B = x.dim(0), N = x.dim(1), C = x.dim(2), frames = (N - F) / step + 1;
  const int64_t bins = onesided ? F / 2 + 1 : F;
  Tensor y = Tensor::hostAllocate({B, frames, bins, 2}, x.dtype());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t k = 0; k < bins; ++k) {
        double re = 0, im = 0;
        for (int64_t j = 0; j < F; ++j) {
          const int64_t at = (b * N + f * step + j) * C;
          const double w = window ? valueAt(*window, j) : 1.0;
          const double xr = valueAt(x, at) * w, xi = C == 2 ? valueAt(x, at + 1) * w : 0.0;
          const double angle = -2 * kPi * static_cast<double>((j * k) % F) / F;
          re += xr * std::cos(angle) - xi * std::sin(angle);
          im += xr * std::sin(angle) + xi * std::cos(angle);
        }
        const int64_t o = ((b * frames + f) * bins + k) * 2;
        setValue(y, o, re);
        setValue(y, o + 1, im);
      }
  return y;
}

TEST(StftOp, FramesAgainstNaive) {
  uint32_t seed = 900;
  struct Case { int64_t batch, length, C, step, F; };
  for (const Case& c : {Case{1, 128, 1, 8, 16}, Case{2, 50, 1, 3, 7}, Case{3, 37, 2, 5, 37}, Case{2, 40, 2, 1, 5},
                        Case{1, 100, 1, 9, 33}, Case{2, 9, 1, 4, 1}}) {
    for (DataType dt : {DataType::kF32, DataType::kF64}) {
      for (int mode = 0; mode < 4; ++mode) {
        const bool windowed = mode & 1, onesided = mode & 2;
        const Tensor x = randomOf({c.batch, c.length, c.C}, seed++, dt);
        const Tensor w = randomOf({c.F}, seed++, dt);
        Attributes a;
        a.setInt("onesided", onesided);
        std::vector<Tensor> in = {x, tensorFromInts({}, {c.step})};
        in.push_back(windowed ? w : none());
        if (!windowed || c.F % 2) in.push_back(tensorFromInts({}, {c.F}));  // with a window: optional
        const std::string what = "length " + std::to_string(c.length) + " F " + std::to_string(c.F) + " step " +
                                 std::to_string(c.step) + " C " + std::to_string(c.C) + " mode " +
                                 std::to_string(mode) + " " + dataTypeName(dt);
        OpRun r = runOp("STFT", in, a, 1, BackendType::kCPU);
        ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
        EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
        expectClose(r.outputs[0], stftReference(x, c.step, windowed ? &w : nullptr, c.F, onesided), rtolFor(dt),
                    atolFor(dt, c.F), what);
      }
    }
  }
}

void expectFailure(const OpRun& r, const std::string& op, const std::string& cause) {
  ASSERT_FALSE(r.status.isOk()) << cause;
  EXPECT_NE(r.status.message().find(op), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find(cause), std::string::npos) << r.status.message();
}

TEST(DftOp, BadInputsFailNamingTheNode) {
  expectFailure(runOp("DFT", {randomTensor({1, 4, 3}, 1)}, {}, 1, BackendType::kCPU), "DFT", "ends in 3");
  expectFailure(runOp("DFT", {randomTensor({4, 1}, 1)}, {}, 1, BackendType::kCPU), "DFT", "rank >= 3");
  Attributes axis;
  axis.setInt("axis", 2);
  expectFailure(runOp("DFT", {randomTensor({1, 4, 1}, 1)}, axis, 1, BackendType::kCPU), "DFT", "axis 2");
  axis.setInt("axis", 0);
  expectFailure(runOp("DFT", {randomTensor({1, 4, 1}, 1)}, axis, 1, BackendType::kCPU), "DFT", "axis 0");
  expectFailure(runOp("DFT", {randomTensor({1, 4, 1}, 1), tensorFromInts({}, {0})}, {}, 1, BackendType::kCPU), "DFT",
                "dft_length 0");
  const Tensor signal = randomTensor({1, 10, 1}, 1);
  expectFailure(runOp("STFT", {signal, tensorFromInts({}, {2}), none(), tensorFromInts({}, {11})}, {}, 1,
                      BackendType::kCPU), "STFT", "frame length 11");
  expectFailure(runOp("STFT", {signal, tensorFromInts({}, {0}), none(), tensorFromInts({}, {4})}, {}, 1,
                      BackendType::kCPU), "STFT", "frame_step 0");
  expectFailure(runOp("STFT", {signal, tensorFromInts({}, {2}), randomTensor({4}, 2), tensorFromInts({}, {5})}, {}, 1,
                      BackendType::kCPU), "STFT", "differs from the window");
  expectFailure(runOp("STFT", {signal, tensorFromInts({}, {2})}, {}, 1, BackendType::kCPU), "STFT",
                "needs a window or a frame_length");
  expectFailure(runOp("STFT", {randomTensor({1, 10, 3}, 1), tensorFromInts({}, {2}), none(), tensorFromInts({}, {4})},
                      {}, 1, BackendType::kCPU), "STFT", "[batch, length, 1 or 2]");
}

}  // namespace
}  // namespace test
}  // namespace tessera
