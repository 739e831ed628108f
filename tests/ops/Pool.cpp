// MaxPool / AveragePool / GlobalMaxPool / GlobalAveragePool against a naive reference:
// channels 1, 3, 5, 13, odd sizes, batch 1 and 3, pads, strides, dilations, ceil_mode,
// count_include_pad, MaxPool Indices (both storage orders), 1-D and 3-D, uint8.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

struct PoolCase {
  Shape x;
  std::vector<int64_t> kernel, stride, dilation, pads;  // pads: begins then ends
  bool ceil = false;
  bool includePad = false;
};

int64_t outExtent(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, bool ceil) {
  const int64_t span = (k - 1) * d + 1, padded = in + pb + pe;
  int64_t out = ceil ? (padded - span + s - 1) / s + 1 : (padded - span) / s + 1;
  if (ceil && (out - 1) * s >= in + pb) --out;
  return out;
}

// Reference for 2-D pools on NCHW f32; returns {y, indices (row-major or column-major)}.
std::vector<Tensor> poolReference(const Tensor& x, const PoolCase& c, bool isMax, int storageOrder) {
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  const int64_t OH = outExtent(H, c.kernel[0], c.stride[0], c.dilation[0], c.pads[0], c.pads[2], c.ceil);
  const int64_t OW = outExtent(W, c.kernel[1], c.stride[1], c.dilation[1], c.pads[1], c.pads[3], c.ceil);
  Tensor y = Tensor::hostAllocate({N, C, OH, OW}, DataType::kF32);
  Tensor idx = Tensor::hostAllocate({N, C, OH, OW}, DataType::kI64);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double sum = 0, best = -INFINITY;
          int64_t bestAt = 0, valid = 0, padded = 0;
          for (int64_t kh = 0; kh < c.kernel[0]; ++kh)
            for (int64_t kw = 0; kw < c.kernel[1]; ++kw) {
              const int64_t ih = oh * c.stride[0] - c.pads[0] + kh * c.dilation[0];
              const int64_t iw = ow * c.stride[1] - c.pads[1] + kw * c.dilation[1];
              if (ih < H + c.pads[2] && iw < W + c.pads[3]) ++padded;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              ++valid;
              const double v = x.data<float>()[((n * C + ch) * H + ih) * W + iw];
              sum += v;
              if (v > best) {
                best = v;
                bestAt = (n * C + ch) * H * W + (storageOrder ? iw * H + ih : ih * W + iw);
              }
            }
          const int64_t o = ((n * C + ch) * OH + oh) * OW + ow;
          y.data<float>()[o] = static_cast<float>(isMax ? best : sum / (c.includePad ? padded : valid));
          idx.data<int64_t>()[o] = bestAt;
        }
  return {y, idx};
}

Attributes poolAttributes(const PoolCase& c) {
  Attributes a;
  a.setInts("kernel_shape", c.kernel);
  a.setInts("strides", c.stride);
  a.setInts("pads", c.pads);
  a.setInt("ceil_mode", c.ceil ? 1 : 0);
  if (c.dilation != std::vector<int64_t>(c.dilation.size(), 1)) a.setInts("dilations", c.dilation);
  return a;
}

TEST(PoolOp, MaxAndAverage2D) {
  std::vector<PoolCase> cases = {
      {{1, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}},
      {{3, 5, 9, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
      {{1, 13, 8, 11}, {3, 2}, {1, 2}, {1, 1}, {1, 0, 2, 1}, false, true},
      {{2, 3, 10, 9}, {3, 3}, {2, 3}, {1, 1}, {0, 1, 1, 0}, true, false},
      {{1, 5, 9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, true, true},
      // Dilated windows (their rows and columns a step apart in the CPU's row-then-column
      // reduction), batch 2, one-sided pads.
      {{2, 6, 11, 10}, {3, 3}, {2, 1}, {2, 2}, {2, 1, 1, 2}, false, true},
      {{1, 4, 7, 12}, {2, 3}, {1, 2}, {3, 2}, {0, 2, 1, 0}},
      // 3 wide at stride 2 (the CPU's vector column pass, 4 outputs a vector): outputs past
      // the last whole vector, windows into the right padding (ceil_mode, one-sided pads), a
      // 2-pixel left pad.
      {{2, 6, 23, 21}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
      {{1, 7, 12, 26}, {3, 3}, {2, 2}, {1, 1}, {0, 0, 1, 1}, true, false},
      {{1, 3, 9, 17}, {3, 3}, {1, 2}, {1, 1}, {1, 2, 1, 2}},
  };
  uint32_t seed = 1;
  for (const PoolCase& c : cases) {
    const Tensor x = randomTensor(c.x, seed++);
    for (BackendType b : availableBackends()) {
      OpRun r = runOp("MaxPool", {x}, poolAttributes(c), 1, b);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], poolReference(x, c, true, 0)[0], 1e-6, 1e-6, "MaxPool " + shapeToString(c.x));
      Attributes a = poolAttributes(c);
      a.setInt("count_include_pad", c.includePad ? 1 : 0);
      r = runOp("AveragePool", {x}, a, 1, b);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], poolReference(x, c, false, 0)[0], 1e-5, 1e-6, "AveragePool " + shapeToString(c.x));
    }
  }
}

TEST(PoolOp, MaxPoolDilationsAndIndices) {
  PoolCase c = {{3, 5, 9, 8}, {2, 3}, {1, 2}, {2, 1}, {1, 1, 0, 1}};
  const Tensor x = randomTensor(c.x, 50);
  for (int order : {0, 1}) {
    Attributes a = poolAttributes(c);
    a.setInts("dilations", c.dilation);
    a.setInt("storage_order", order);
    OpRun r = runOp("MaxPool", {x}, a, 2, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    const std::vector<Tensor> ref = poolReference(x, c, true, order);
    expectClose(r.outputs[0], ref[0], 0, 0, "values");
    expectClose(r.outputs[1], ref[1], 0, 0, "indices, storage_order " + std::to_string(order));
  }
}

TEST(PoolOp, Global) {
  const Tensor x = randomTensor({3, 13, 5, 7}, 60);
  Tensor maxRef = Tensor::hostAllocate({3, 13, 1, 1}, DataType::kF32);
  Tensor avgRef = Tensor::hostAllocate({3, 13, 1, 1}, DataType::kF32);
  for (int64_t p = 0; p < 39; ++p) {
    double m = -INFINITY, s = 0;
    for (int64_t i = 0; i < 35; ++i) {
      m = std::max(m, double(x.data<float>()[p * 35 + i]));
      s += x.data<float>()[p * 35 + i];
    }
    maxRef.data<float>()[p] = static_cast<float>(m);
    avgRef.data<float>()[p] = static_cast<float>(s / 35);
  }
  for (BackendType b : availableBackends()) {
    OpRun r = runOp("GlobalMaxPool", {x}, {}, 1, b);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], maxRef, 0, 0, "GlobalMaxPool");
    r = runOp("GlobalAveragePool", {x}, {}, 1, b);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], avgRef, 1e-5, 1e-6, "GlobalAveragePool");
  }
  // 3-D input (rank 3 runs on NCHW).
  const Tensor x1 = randomTensor({2, 3, 9}, 61);
  OpRun r = runOp("GlobalAveragePool", {x1}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_EQ(shapeToString(r.outputs[0].shape()), "2x3x1");
}

TEST(PoolOp, OneAndThreeDimensional) {
  // 1-D as a 2-D pool with a unit height, compared through the 2-D reference.
  const Tensor x = randomTensor({3, 5, 17}, 70);
  Attributes a;
  a.setInts("kernel_shape", {3});
  a.setInts("strides", {2});
  a.setInts("pads", {1, 1});
  OpRun r = runOp("MaxPool", {x}, a, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  Tensor x4 = x;
  x4.reshape({3, 5, 1, 17});
  PoolCase c = {{3, 5, 1, 17}, {1, 3}, {1, 2}, {1, 1}, {0, 1, 0, 1}};
  Tensor ref = poolReference(x4, c, true, 0)[0];
  ref.reshape({3, 5, 9});
  expectClose(r.outputs[0], ref, 0, 0, "MaxPool 1-D");

  // 3-D average over a 2x2x2 window equals the mean of eight values.
  const Tensor x3 = randomTensor({1, 3, 4, 4, 4}, 71);
  Attributes a3;
  a3.setInts("kernel_shape", {2, 2, 2});
  a3.setInts("strides", {2, 2, 2});
  r = runOp("AveragePool", {x3}, a3, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  Tensor ref3 = Tensor::hostAllocate({1, 3, 2, 2, 2}, DataType::kF32);
  for (int64_t c3 = 0; c3 < 3; ++c3)
    for (int64_t o = 0; o < 8; ++o) {
      const int64_t od = o / 4, oh = (o / 2) % 2, ow = o % 2;
      double s = 0;
      for (int64_t k = 0; k < 8; ++k)
        s += x3.data<float>()[c3 * 64 + (od * 2 + k / 4) * 16 + (oh * 2 + (k / 2) % 2) * 4 + ow * 2 + k % 2];
      ref3.data<float>()[c3 * 8 + o] = static_cast<float>(s / 8);
    }
  expectClose(r.outputs[0], ref3, 1e-5, 1e-6, "AveragePool 3-D");
}

TEST(PoolOp, MaxPoolUint8) {
  Tensor x = Tensor::hostAllocate({1, 3, 4, 5}, DataType::kU8);
  for (int64_t i = 0; i < 60; ++i) x.data<uint8_t>()[i] = static_cast<uint8_t>((i * 37) % 251);
  Attributes a;
  a.setInts("kernel_shape", {2, 2});
  OpRun r = runOp("MaxPool", {x}, a, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  ASSERT_EQ(shapeToString(r.outputs[0].shape()), "1x3x3x4");
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t h = 0; h < 3; ++h)
      for (int64_t w = 0; w < 4; ++w) {
        uint8_t m = 0;
        for (int64_t k = 0; k < 4; ++k) m = std::max(m, x.data<uint8_t>()[c * 20 + (h + k / 2) * 5 + w + k % 2]);
        EXPECT_EQ(r.outputs[0].data<uint8_t>()[(c * 3 + h) * 4 + w], m);
      }
}

TEST(PoolOp, RejectsMissingKernelShape) {
  OpRun r = runOp("MaxPool", {randomTensor({1, 1, 4, 4}, 1)}, {}, 1, BackendType::kCPU);
  EXPECT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("kernel_shape"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
