// Resize / Upsample: nearest and linear against naive references, cubic and every mode
// checked for plane independence (a packed 5-channel batch equals each plane resized on
// its own), legacy Upsample forms, a rank-3 input, and the sum Z of ops/Resize.hpp on every
// backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor floats(const std::vector<float>& v) { return tensorFrom({static_cast<int64_t>(v.size())}, v); }
Tensor ints(const std::vector<int64_t>& v) { return tensorFromInts({static_cast<int64_t>(v.size())}, v); }
Tensor none() { return Tensor(Shape{}, DataType::kUnknown); }  // an omitted input

TEST(ResizeOp, NearestAsymmetricFloorRepeats) {
  const Tensor x = randomTensor({2, 5, 3, 4}, 1);
  Attributes a;
  a.setString("mode", "nearest");
  a.setString("coordinate_transformation_mode", "asymmetric");
  a.setString("nearest_mode", "floor");
  OpRun r = runOp("Resize", {x, none(), floats({1, 1, 2, 3}), none()}, a, 1, BackendType::kCPU, {false, false, true, false}, 13);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  Tensor ref = Tensor::hostAllocate({2, 5, 6, 12}, DataType::kF32);
  for (int64_t p = 0; p < 10; ++p)
    for (int64_t h = 0; h < 6; ++h)
      for (int64_t w = 0; w < 12; ++w) ref.data<float>()[(p * 6 + h) * 12 + w] = x.data<float>()[(p * 3 + h / 2) * 4 + w / 3];
  expectClose(r.outputs[0], ref, 0, 0, "nearest x2 x3");
}

TEST(ResizeOp, LinearHalfPixelMatchesNaiveBilinear) {
  const Tensor x = randomTensor({3, 5, 7, 6}, 2);
  const int64_t OH = 11, OW = 4;
  Attributes a;
  a.setString("mode", "linear");
  OpRun r = runOp("Resize", {x, none(), none(), ints({3, 5, OH, OW})}, a, 1, BackendType::kCPU, {false, false, false, true}, 13);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  Tensor ref = Tensor::hostAllocate({3, 5, OH, OW}, DataType::kF32);
  auto coord = [](int64_t o, int64_t in, int64_t out, int64_t* i0, double* f) {
    double v = (o + 0.5) * double(in) / double(out) - 0.5;
    v = std::min(std::max(v, 0.0), double(in - 1));
    *i0 = static_cast<int64_t>(std::floor(v));
    *f = v - *i0;
  };
  for (int64_t p = 0; p < 15; ++p)
    for (int64_t h = 0; h < OH; ++h)
      for (int64_t w = 0; w < OW; ++w) {
        int64_t h0, w0;
        double fh, fw;
        coord(h, 7, OH, &h0, &fh);
        coord(w, 6, OW, &w0, &fw);
        const int64_t h1 = std::min<int64_t>(h0 + 1, 6), w1 = std::min<int64_t>(w0 + 1, 5);
        auto at = [&](int64_t hh, int64_t ww) { return double(x.data<float>()[(p * 7 + hh) * 6 + ww]); };
        const double v = (1 - fh) * ((1 - fw) * at(h0, w0) + fw * at(h0, w1)) + fh * ((1 - fw) * at(h1, w0) + fw * at(h1, w1));
        ref.data<float>()[(p * OH + h) * OW + w] = static_cast<float>(v);
      }
  expectClose(r.outputs[0], ref, 1e-5, 1e-6, "bilinear");
}

// Resizing [2, 5, H, W] must equal resizing each (n, c) plane alone: the packed layout may
// not mix channels.
TEST(ResizeOp, PlanesAreIndependentForEveryMode) {
  const Tensor x = randomTensor({2, 5, 6, 7}, 3);
  struct Mode { const char* mode; const char* coords; int exclude; };
  for (const Mode& m : {Mode{"cubic", "half_pixel", 0}, Mode{"cubic", "align_corners", 0}, Mode{"cubic", "asymmetric", 1},
                        Mode{"linear", "pytorch_half_pixel", 0}, Mode{"nearest", "tf_half_pixel_for_nn", 0},
                        Mode{"linear", "align_corners", 0}}) {
    Attributes a;
    a.setString("mode", m.mode);
    a.setString("coordinate_transformation_mode", m.coords);
    a.setInt("exclude_outside", m.exclude);
    const Tensor scales = floats({1, 1, 1.7f, 0.6f});
    OpRun all = runOp("Resize", {x, none(), scales}, a, 1, BackendType::kCPU, {false, false, true}, 13);
    ASSERT_TRUE(all.status.isOk()) << all.status.message();
    const Shape ys = all.outputs[0].shape();
    ASSERT_EQ(shapeToString(ys), "2x5x10x4");
    const int64_t planeIn = 42, planeOut = 40;
    for (int64_t p = 0; p < 10; ++p) {
      Tensor plane = Tensor::hostAllocate({1, 1, 6, 7}, DataType::kF32);
      std::copy(x.data<float>() + p * planeIn, x.data<float>() + (p + 1) * planeIn, plane.data<float>());
      OpRun one = runOp("Resize", {plane, none(), scales}, a, 1, BackendType::kCPU, {false, false, true}, 13);
      ASSERT_TRUE(one.status.isOk()) << one.status.message();
      Tensor slice = Tensor::hostAllocate({1, 1, 10, 4}, DataType::kF32);
      std::copy(all.outputs[0].data<float>() + p * planeOut, all.outputs[0].data<float>() + (p + 1) * planeOut,
                slice.data<float>());
      expectClose(slice, one.outputs[0], 1e-6, 1e-6, std::string(m.mode) + " " + m.coords);
    }
  }
}

// Scaling the channel axis of a packed tensor: channel c of y reads channel c / 2 of x.
TEST(ResizeOp, NearestAlongChannels) {
  const Tensor x = randomTensor({2, 3, 4, 5}, 6);
  Attributes a;
  a.setString("mode", "nearest");
  a.setString("coordinate_transformation_mode", "asymmetric");
  a.setString("nearest_mode", "floor");
  OpRun r = runOp("Resize", {x, none(), floats({1, 2, 1, 1}), none()}, a, 1, BackendType::kCPU, {false, false, true, false}, 13);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  Tensor ref = Tensor::hostAllocate({2, 6, 4, 5}, DataType::kF32);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 6; ++c)
      for (int64_t s = 0; s < 20; ++s) ref.data<float>()[(n * 6 + c) * 20 + s] = x.data<float>()[(n * 3 + c / 2) * 20 + s];
  expectClose(r.outputs[0], ref, 0, 0, "channels x2");
}

TEST(ResizeOp, UpsampleLegacyForms) {
  const Tensor x = randomTensor({1, 3, 2, 3}, 4);
  Tensor ref = Tensor::hostAllocate({1, 3, 4, 6}, DataType::kF32);
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t w = 0; w < 6; ++w) ref.data<float>()[(c * 4 + h) * 6 + w] = x.data<float>()[(c * 2 + h / 2) * 3 + w / 2];
  Attributes a;
  a.setString("mode", "nearest");
  OpRun r9 = runOp("Upsample", {x, floats({1, 1, 2, 2})}, a, 1, BackendType::kCPU, {false, true}, 9);
  ASSERT_TRUE(r9.status.isOk()) << r9.status.message();
  expectClose(r9.outputs[0], ref, 0, 0, "Upsample-9");
  a.setFloats("scales", {1, 1, 2, 2});
  OpRun r7 = runOp("Upsample", {x}, a, 1, BackendType::kCPU, {}, 7);
  ASSERT_TRUE(r7.status.isOk()) << r7.status.message();
  expectClose(r7.outputs[0], ref, 0, 0, "Upsample-7");
  OpRun r10 = runOp("Resize", {x, floats({1, 1, 2, 2})}, a, 1, BackendType::kCPU, {false, true}, 10);
  ASSERT_TRUE(r10.status.isOk()) << r10.status.message();
  expectClose(r10.outputs[0], ref, 0, 0, "Resize-10");
}

TEST(ResizeOp, Rank3AndErrors) {
  const Tensor x = randomTensor({2, 3, 5}, 5);
  Attributes a;
  a.setString("mode", "nearest");
  a.setString("coordinate_transformation_mode", "asymmetric");
  OpRun r = runOp("Resize", {x, none(), none(), ints({2, 3, 10})}, a, 1, BackendType::kCPU, {false, false, false, true}, 13);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  for (int64_t i = 0; i < 60; ++i) EXPECT_EQ(r.outputs[0].data<float>()[i], x.data<float>()[(i / 10) * 5 + (i % 10) / 2]);
  // Neither scales nor sizes.
  r = runOp("Resize", {x}, a, 1, BackendType::kCPU, {}, 13);
  EXPECT_FALSE(r.status.isOk());
}

// The sum Z (ops/Resize.hpp, FuseConvAdd: a feature pyramid's upsampled map plus its lateral
// one) on every backend: resize(x) + Z against the CPU's plain resize (tested above against
// naive references) plus Z added here. Nearest 2x and linear on NC4HW4 (channels not a
// multiple of 4, batch 2, odd sizes), and a rank-3 linear resize (Vulkan's plain build; OpenCL
// leaves rank 3 to the CPU, so there only the values are checked).
TEST(ResizeOp, SumZOnEveryBackend) {
  struct Case { Shape x; std::vector<float> scales; const char* mode; bool rank4; };
  const Case cases[] = {{{2, 6, 5, 7}, {1, 1, 2, 2}, "nearest", true},
                        {{1, 3, 4, 6}, {1, 1, 2, 1.5f}, "linear", true},
                        {{2, 5, 7}, {1, 1, 2}, "linear", false}};
  uint32_t seed = 70;
  for (const Case& c : cases) {
    Attributes a;
    a.setString("mode", c.mode);
    const Tensor x = randomTensor(c.x, seed++), scales = floats(c.scales);
    OpRun plain = runOp("Resize", {x, none(), scales}, a, 1, BackendType::kCPU, {false, false, true}, 13);
    ASSERT_TRUE(plain.status.isOk()) << plain.status.message();
    const Tensor z = randomTensor(plain.outputs[0].shape(), seed++, -3.f, 3.f);
    Tensor expected = Tensor::hostAllocate(z.shape(), DataType::kF32);
    for (int64_t i = 0; i < z.elementCount(); ++i)
      expected.data<float>()[i] = plain.outputs[0].data<float>()[i] + z.data<float>()[i];
    const std::string what = shapeToString(c.x) + " " + c.mode;
    for (BackendType backend : availableBackends()) {
      OpRun r = runOp("Resize", {x, none(), scales, none(), z}, a, 1, backend, {false, false, true, false, false}, 13);
      ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
      if (c.rank4 || backend != BackendType::kOpenCL)
        for (const auto& n : r.report.nodes) EXPECT_EQ(n.backend, backend) << what;
      expectClose(r.outputs[0], expected, 1e-5, 1e-5, what + " + Z on " + backendTypeName(backend));
    }
  }
  // A Z of another shape, or on an opset-10 Resize, is an error naming it.
  const Tensor x = randomTensor({1, 2, 3, 3}, 1);
  OpRun r = runOp("Resize", {x, none(), floats({1, 1, 2, 2}), none(), randomTensor({1, 2, 6, 5}, 2)}, {}, 1,
                  BackendType::kCPU, {false, false, true, false, false}, 13);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("sum Z"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
