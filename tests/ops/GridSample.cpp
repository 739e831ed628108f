// GridSample: every mode x padding mode x align_corners on every available backend against a
// naive reference written here from the spec (each tap padded on its own, reflection by
// repeated mirroring), over awkward shapes and grid points far outside [-1, 1]; bad inputs
// give errors that name the node and the tensor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

struct Settings {
  std::string mode, padding;
  bool align;
};

// The value of pixel (r, c) of one H x W plane, padded as `padding` says.
double pixel(const float* plane, int64_t H, int64_t W, int64_t r, int64_t c, const Settings& s) {
  if (s.padding == "zeros") return r < 0 || r >= H || c < 0 || c >= W ? 0.0 : plane[r * W + c];
  auto fold = [&](int64_t i, int64_t len) {
    if (s.padding == "border") return std::min<int64_t>(std::max<int64_t>(i, 0), len - 1);
    const double lo = s.align ? 0.0 : -0.5, hi = s.align ? len - 1.0 : len - 0.5;
    if (hi <= lo) return int64_t(0);
    double v = static_cast<double>(i);
    while (v < lo || v > hi) v = v < lo ? 2 * lo - v : 2 * hi - v;  // mirror at the nearer edge
    return static_cast<int64_t>(v);
  };
  return plane[fold(r, H) * W + fold(c, W)];
}

double keys(double d) {  // cubic convolution kernel, A = -0.75
  const double A = -0.75, t = std::fabs(d);
  if (t <= 1) return (A + 2) * t * t * t - (A + 3) * t * t + 1;
  if (t < 2) return A * t * t * t - 5 * A * t * t + 8 * A * t - 4 * A;
  return 0;
}

double sample(const float* plane, int64_t H, int64_t W, float gx, float gy, const Settings& s) {
  // In float, as the spec's arithmetic: nearest must round the same value the kernels do.
  const float x = s.align ? (gx + 1.f) / 2.f * (W - 1) : ((gx + 1.f) * W - 1.f) / 2.f;
  const float y = s.align ? (gy + 1.f) / 2.f * (H - 1) : ((gy + 1.f) * H - 1.f) / 2.f;
  if (s.mode == "nearest")
    return pixel(plane, H, W, static_cast<int64_t>(std::nearbyint(y)), static_cast<int64_t>(std::nearbyint(x)), s);
  const int64_t x0 = static_cast<int64_t>(std::floor(x)), y0 = static_cast<int64_t>(std::floor(y));
  const double tx = x - x0, ty = y - y0;
  double sum = 0;
  if (s.mode == "bilinear") {
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b)
        sum += (a ? ty : 1 - ty) * (b ? tx : 1 - tx) * pixel(plane, H, W, y0 + a, x0 + b, s);
    return sum;
  }
  for (int a = -1; a <= 2; ++a)
    for (int b = -1; b <= 2; ++b)
      sum += keys(ty - a) * keys(tx - b) * pixel(plane, H, W, y0 + a, x0 + b, s);
  return sum;
}

Tensor reference(const Tensor& x, const Tensor& grid, const Settings& s) {
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), Ho = grid.dim(1), Wo = grid.dim(2);
  Tensor y = Tensor::hostAllocate({N, C, Ho, Wo}, DataType::kF32);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < Ho * Wo; ++i) {
        const float* g = grid.data<float>() + (n * Ho * Wo + i) * 2;
        y.data<float>()[(n * C + c) * Ho * Wo + i] =
            static_cast<float>(sample(x.data<float>() + (n * C + c) * H * W, H, W, g[0], g[1], s));
      }
  return y;
}

// Random points in [-1.6, 1.6], then the corners, the centre, exact pixel edges and points
// far outside, so every padding rule is exercised.
Tensor gridFor(const Shape& shape, uint32_t seed) {
  Tensor g = randomTensor(shape, seed, -1.6f, 1.6f);
  const float special[] = {-1, -1, 1, 1, 0, 0, -0.5f, 0.5f, -4.f, 3.3f, 7.25f, -9.f, 1.04f, -1.04f, 2.5f, -2.5f};
  for (int64_t i = 0; i < std::min<int64_t>(g.elementCount(), 16); ++i) g.data<float>()[i] = special[i];
  return g;
}

std::vector<Settings> allSettings() {
  std::vector<Settings> out;
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* padding : {"zeros", "border", "reflection"})
      for (bool align : {false, true}) out.push_back({mode, padding, align});
  return out;
}

Attributes attrsFor(const Settings& s) {
  Attributes a;
  a.setString("mode", s.mode);
  a.setString("padding_mode", s.padding);
  a.setInt("align_corners", s.align ? 1 : 0);
  return a;
}

TEST(GridSampleOp, EveryModeOnEveryBackendMatchesNaiveReference) {
  // C not a multiple of 4, odd H and W, batch 2 and 3, one-pixel images, grid shapes of their own.
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 5, 7, 6}, {2, 3, 5, 2}}, {{1, 3, 1, 1}, {1, 2, 3, 2}}, {{3, 1, 2, 5}, {3, 4, 1, 2}}};
  for (BackendType b : availableBackends()) {
    std::printf("GridSample on %s: every case must run there\n", backendTypeName(b));
    for (size_t k = 0; k < shapes.size(); ++k) {
      const Tensor x = randomTensor(shapes[k].first, 10 + static_cast<uint32_t>(k));
      const Tensor grid = gridFor(shapes[k].second, 20 + static_cast<uint32_t>(k));
      for (const Settings& s : allSettings()) {
        const std::string what = std::string(backendTypeName(b)) + " " + s.mode + " " + s.padding +
                                 (s.align ? " align_corners " : " ") + shapeToString(x.shape());
        OpRun r = runOp("GridSample", {x, grid}, attrsFor(s), 1, b, {}, 16);
        ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
        ASSERT_EQ(r.report.nodes.size(), 1u) << what;
        EXPECT_EQ(r.report.nodes[0].backend, b) << what << ": ran on " << backendTypeName(r.report.nodes[0].backend);
        expectClose(r.outputs[0], reference(x, grid, s), 1e-4, 1e-5, what);
      }
    }
  }
}

TEST(GridSampleOp, OpsetTwentySpellingsAndDefaults) {
  const Tensor x = randomTensor({1, 2, 4, 3}, 30);
  const Tensor grid = gridFor({1, 2, 2, 2}, 31);
  Attributes cubic;
  cubic.setString("mode", "cubic");
  OpRun r = runOp("GridSample", {x, grid}, cubic, 1, BackendType::kCPU, {}, 20);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectClose(r.outputs[0], reference(x, grid, {"bicubic", "zeros", false}), 1e-4, 1e-5, "cubic");
  OpRun d = runOp("GridSample", {x, grid}, {}, 1, BackendType::kCPU, {}, 16);  // bilinear, zeros, no align
  ASSERT_TRUE(d.status.isOk()) << d.status.message();
  expectClose(d.outputs[0], reference(x, grid, {"bilinear", "zeros", false}), 1e-4, 1e-5, "defaults");
}

TEST(GridSampleOp, BadInputsAreClearErrors) {
  struct Bad {
    Tensor x, grid;
    Attributes attrs;
    std::string expected;
  };
  Attributes mode, padding, align;
  mode.setString("mode", "area");
  padding.setString("padding_mode", "wrap");
  align.setInt("align_corners", 2);
  const Tensor x = randomTensor({2, 3, 4, 5}, 40), grid = randomTensor({2, 3, 3, 2}, 41);
  const std::vector<Bad> cases = {
      {randomTensor({3, 4, 5}, 42), grid, {}, "input X 'in0' f32 3x4x5 NCHW must have rank 4"},
      {x, randomTensor({2, 3, 2}, 43), {}, "must have rank 4 [N, H_out, W_out, 2]"},
      {x, randomTensor({2, 3, 3, 3}, 44), {}, "must have 2 values (x, y) in its last dimension"},
      {x, randomTensor({1, 3, 3, 2}, 45), {}, "has batch 1 but X"},
      {randomTensor({2, 3, 0, 5}, 46), grid, {}, "has no pixels to sample from"},
      {x, grid, mode, "unknown mode 'area'"},
      {x, grid, padding, "unknown padding_mode 'wrap'"},
      {x, grid, align, "align_corners must be 0 or 1"}};
  for (BackendType b : availableBackends())
    for (const Bad& c : cases) {
      OpRun r = runOp("GridSample", {c.x, c.grid}, c.attrs, 1, b, {}, 16);
      ASSERT_FALSE(r.status.isOk()) << c.expected;
      EXPECT_NE(r.status.message().find("GridSample 'op'"), std::string::npos) << r.status.message();
      EXPECT_NE(r.status.message().find(c.expected), std::string::npos) << r.status.message();
    }
}

TEST(GridSampleOp, EmptyGridGivesEmptyOutput) {
  for (BackendType b : availableBackends()) {
    OpRun r = runOp("GridSample", {randomTensor({2, 3, 4, 5}, 50), randomTensor({2, 0, 3, 2}, 51)}, {}, 1, b, {}, 16);
    ASSERT_TRUE(r.status.isOk()) << backendTypeName(b) << ": " << r.status.message();
    EXPECT_EQ(shapeToString(r.outputs[0].shape()), shapeToString({2, 3, 0, 3}));
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
