// RoiAlign: avg and max modes x half_pixel and output_half_pixel (and opset 10's default),
// sampling_ratio 0 (adaptive) and 2, spatial_scale 1 and 0.5, odd image sizes, batch 2,
// three channels, rois partly or wholly outside the image and smaller than a pixel, f32 and
// f64, against a naive reference of the ONNX reference implementation's rules; bad batch
// indices and shapes fail naming the node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

struct Config {
  std::string mode = "avg";
  bool halfPixel = true;
  int64_t outH = 3, outW = 2, samplingRatio = 0;
  float scale = 1.f;
};

// The four (weight, value) neighbours of (y, x) in a plane, or none beyond [-1, extent].
std::vector<std::pair<double, double>> neighbours(const float* plane, int64_t H, int64_t W, double y, double x) {
  if (y < -1 || y > H || x < -1 || x > W) return {};
  y = std::min(std::max(y, 0.0), static_cast<double>(H - 1));
  x = std::min(std::max(x, 0.0), static_cast<double>(W - 1));
  const int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x);
  const int64_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
  const double fy = y - y0, fx = x - x0;
  return {{(1 - fy) * (1 - fx), plane[y0 * W + x0]},
          {(1 - fy) * fx, plane[y0 * W + x1]},
          {fy * (1 - fx), plane[y1 * W + x0]},
          {fy * fx, plane[y1 * W + x1]}};
}

Tensor roiAlignReference(const Tensor& x, const std::vector<float>& rois, const std::vector<int64_t>& batch,
                         const Config& c) {
  const int64_t C = x.dim(1), H = x.dim(2), W = x.dim(3), R = static_cast<int64_t>(batch.size());
  Tensor y = Tensor::hostAllocate({R, C, c.outH, c.outW}, DataType::kF32);
  for (int64_t r = 0; r < R; ++r) {
    const double shift = c.halfPixel ? 0.5 : 0;
    const double x1 = rois[r * 4] * c.scale - shift, y1 = rois[r * 4 + 1] * c.scale - shift;
    double w = rois[r * 4 + 2] * c.scale - shift - x1, h = rois[r * 4 + 3] * c.scale - shift - y1;
    if (!c.halfPixel) w = std::max(w, 1.0), h = std::max(h, 1.0);
    const double binH = h / c.outH, binW = w / c.outW;
    const int64_t gh = c.samplingRatio ? c.samplingRatio : static_cast<int64_t>(std::ceil(h / c.outH));
    const int64_t gw = c.samplingRatio ? c.samplingRatio : static_cast<int64_t>(std::ceil(w / c.outW));
    for (int64_t ch = 0; ch < C; ++ch) {
      const float* plane = x.data<float>() + (batch[r] * C + ch) * H * W;
      for (int64_t ph = 0; ph < c.outH; ++ph) {
        for (int64_t pw = 0; pw < c.outW; ++pw) {
          std::vector<double> points;  // each sample point's value: a sum (avg) or a max of weighted taps
          for (int64_t iy = 0; iy < gh; ++iy) {
            for (int64_t ix = 0; ix < gw; ++ix) {
              const double py = y1 + ph * binH + (iy + 0.5) * binH / gh, px = x1 + pw * binW + (ix + 0.5) * binW / gw;
              double sum = 0, best = -INFINITY;
              const auto taps = neighbours(plane, H, W, py, px);
              for (const auto& t : taps) {
                sum += t.first * t.second;
                best = std::max(best, t.first * t.second);
              }
              points.push_back(c.mode == "avg" ? sum : (taps.empty() ? 0.0 : best));
            }
          }
          double v = 0;
          if (c.mode == "avg") {
            for (double p : points) v += p;
            v /= std::max<int64_t>(gh * gw, 1);
          } else if (!points.empty()) {
            v = *std::max_element(points.begin(), points.end());
          }
          y.data<float>()[((r * C + ch) * c.outH + ph) * c.outW + pw] = static_cast<float>(v);
        }
      }
    }
  }
  return y;
}

Attributes attrsOf(const Config& c) {
  Attributes a;
  a.setString("mode", c.mode);
  a.setString("coordinate_transformation_mode", c.halfPixel ? "half_pixel" : "output_half_pixel");
  a.setInt("output_height", c.outH);
  a.setInt("output_width", c.outW);
  a.setInt("sampling_ratio", c.samplingRatio);
  a.setFloat("spatial_scale", c.scale);
  return a;
}

Tensor toF64(const Tensor& t) {
  return filledTensor<double>(t.shape(), [&](int64_t i) { return t.data<float>()[i]; });
}

TEST(RoiAlignOp, BothModesBothCoordinateModesAgainstNaive) {
  const Tensor x = randomTensor({2, 3, 7, 9}, 5, 0.f, 1.f);
  // Inside, partly outside on every side, wholly outside, smaller than a pixel, inverted.
  const std::vector<float> rois = {0, 0, 8, 6,   -3, -2, 4, 5,  5, 4, 12, 11, 1, 1, 1.4f, 1.2f,
                                   20, 20, 24, 22, 2.5f, 3, 7.5f, 6.5f, 6, 5, 2, 1};
  const std::vector<int64_t> batch = {0, 1, 1, 0, 1, 0, 1};
  const Tensor roisT = tensorFrom({7, 4}, rois);
  for (const char* mode : {"avg", "max"}) {
    for (bool halfPixel : {true, false}) {
      for (int64_t ratio : {0, 2}) {
        for (float scale : {1.f, 0.5f}) {
          Config c;
          c.mode = mode;
          c.halfPixel = halfPixel;
          c.samplingRatio = ratio;
          c.scale = scale;
          const std::string what = std::string(mode) + (halfPixel ? " half_pixel" : " output_half_pixel") +
                                   " ratio " + std::to_string(ratio) + " scale " + std::to_string(scale);
          const Tensor expected = roiAlignReference(x, rois, batch, c);
          for (DataType it : {DataType::kI64, DataType::kI32}) {
            const Tensor b = it == DataType::kI64 ? filledTensor<int64_t>({7}, [&](int64_t i) { return batch[i]; })
                                                  : filledTensor<int32_t>({7}, [&](int64_t i) { return batch[i]; });
            OpRun r = runOp("RoiAlign", {x, roisT, b}, attrsOf(c), 1, BackendType::kCPU, {}, 16);
            ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
            ASSERT_EQ(r.report.nodes.size(), 1u);
            EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
            expectClose(r.outputs[0], expected, 1e-5, 1e-6, what);
          }
          OpRun r = runOp("RoiAlign", {toF64(x), toF64(roisT), tensorFromInts({7}, batch)}, attrsOf(c), 1,
                          BackendType::kCPU, {}, 16);
          ASSERT_TRUE(r.status.isOk()) << what << " f64: " << r.status.message();
          expectClose(r.outputs[0], toF64(expected), 1e-5, 1e-6, what + " f64");
        }
      }
    }
  }
}

TEST(RoiAlignOp, OpsetDefaults) {
  // Opset 10 has no coordinate_transformation_mode and behaves as output_half_pixel; opset 16
  // defaults to half_pixel. Both default to avg, 1x1, adaptive sampling, scale 1.
  const Tensor x = randomTensor({1, 2, 5, 6}, 7);
  const std::vector<float> rois = {0.5f, 1, 4, 3.5f, -1, 0, 2, 0.5f};
  const std::vector<int64_t> batch = {0, 0};
  for (int opset : {10, 16}) {
    Config c;
    c.outH = c.outW = 1;
    c.halfPixel = opset >= 16;
    OpRun r = runOp("RoiAlign", {x, tensorFrom({2, 4}, rois), tensorFromInts({2}, batch)}, {}, 1, BackendType::kCPU,
                    {}, opset);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], roiAlignReference(x, rois, batch, c), 1e-5, 1e-6, "opset " + std::to_string(opset));
  }
}

TEST(RoiAlignOp, BadInputsFailNamingTheNode) {
  const Tensor x = randomTensor({2, 1, 4, 4}, 1);
  OpRun r = runOp("RoiAlign", {x, tensorFrom({2, 4}, {0, 0, 2, 2, 1, 1, 3, 3}), tensorFromInts({2}, {1, 2})}, {}, 1,
                  BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("RoiAlign"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("'batch_indices' holds 2"), std::string::npos) << r.status.message();
  EXPECT_FALSE(runOp("RoiAlign", {x, tensorFrom({1, 4}, {0, 0, 2, 2}), tensorFromInts({1}, {-1})}, {}, 1,
                     BackendType::kCPU).status.isOk());
  // rois not [R, 4]; one batch index per roi; X not 4-D; a bad mode.
  EXPECT_FALSE(runOp("RoiAlign", {x, tensorFrom({1, 3}, {0, 0, 2}), tensorFromInts({1}, {0})}, {}, 1,
                     BackendType::kCPU).status.isOk());
  EXPECT_FALSE(runOp("RoiAlign", {x, tensorFrom({1, 4}, {0, 0, 2, 2}), tensorFromInts({2}, {0, 0})}, {}, 1,
                     BackendType::kCPU).status.isOk());
  EXPECT_FALSE(runOp("RoiAlign", {randomTensor({1, 4, 4}, 1), tensorFrom({1, 4}, {0, 0, 2, 2}),
                                  tensorFromInts({1}, {0})}, {}, 1, BackendType::kCPU).status.isOk());
  Attributes bad;
  bad.setString("mode", "median");
  r = runOp("RoiAlign", {x, tensorFrom({1, 4}, {0, 0, 2, 2}), tensorFromInts({1}, {0})}, bad, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("median"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
