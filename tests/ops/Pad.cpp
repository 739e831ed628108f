// Pad against a naive reference: constant (with a value), reflect and edge, pads on every
// axis including channels and negative (cropping) ones, f32 4-D (the NC4HW4 path), int32,
// and the pre-opset-11 attribute form.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

int64_t sourceIndex(const std::string& mode, int64_t o, int64_t begin, int64_t n) {
  int64_t v = o - begin;
  if (v >= 0 && v < n) return v;
  if (mode == "constant") return -1;
  if (mode == "edge") return std::min(std::max<int64_t>(v, 0), n - 1);
  while (v < 0 || v >= n) v = v < 0 ? -v : 2 * (n - 1) - v;  // reflect
  return v;
}

template <typename T>
Tensor padReference(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode, T value) {
  const size_t r = x.shape().size();
  Shape out(r);
  for (size_t d = 0; d < r; ++d) out[d] = x.dim(d) + pads[d] + pads[d + r];
  Tensor y = Tensor::hostAllocate(out, x.dtype());
  for (int64_t i = 0; i < y.elementCount(); ++i) {
    const std::vector<int64_t> idx = unravelIndex(i, out);
    std::vector<int64_t> src(r);
    bool constant = false;
    for (size_t d = 0; d < r; ++d) {
      src[d] = sourceIndex(mode, idx[d], pads[d], x.dim(d));
      constant = constant || src[d] < 0;
    }
    y.data<T>()[i] = constant ? value : x.data<T>()[ravelIndex(src, x.shape())];
  }
  return y;
}

TEST(PadOp, ModesAndAxesF32) {
  const Tensor x = randomTensor({2, 5, 4, 6}, 1);
  const std::vector<std::vector<int64_t>> padSets = {
      {0, 0, 1, 3, 0, 0, 2, 4}, {1, 2, 0, 1, 0, 3, 2, 0}, {0, 1, -1, 2, 1, 0, 1, -2}, {0, 0, 3, 5, 0, 0, 3, 5}};
  for (const std::string mode : {"constant", "reflect", "edge"})
    for (const auto& pads : padSets) {
      Attributes a;
      a.setString("mode", mode);
      const Tensor value = tensorFrom({}, {2.5f});
      OpRun r = runOp("Pad", {x, tensorFromInts({8}, pads), value}, a, 1, BackendType::kCPU, {false, true, false}, 13);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], padReference<float>(x, pads, mode, 2.5f), 0, 0, mode + " pads " + std::to_string(pads[1]));
    }
}

TEST(PadOp, Int32Rank3AndAttributeForm) {
  Tensor x = Tensor::hostAllocate({2, 3, 5}, DataType::kI32);
  for (int64_t i = 0; i < 30; ++i) x.data<int32_t>()[i] = static_cast<int32_t>(i * 7 - 50);
  const std::vector<int64_t> pads = {1, 0, 2, 0, 2, 3};
  for (const std::string mode : {"constant", "reflect", "edge"}) {
    Attributes a;
    a.setString("mode", mode);
    OpRun r = runOp("Pad", {x, tensorFromInts({6}, pads)}, a, 1, BackendType::kCPU, {false, true}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], padReference<int32_t>(x, pads, mode, 0), 0, 0, "int32 " + mode);
  }
  // Opset 2: pads and value are attributes.
  const Tensor xf = randomTensor({3, 7}, 2);
  Attributes a;
  a.setInts("pads", {1, 2, 0, 1});
  a.setFloat("value", -4.f);
  OpRun r = runOp("Pad", {xf}, a, 1, BackendType::kCPU, {}, 2);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectClose(r.outputs[0], padReference<float>(xf, {1, 2, 0, 1}, "constant", -4.f), 0, 0, "attribute form");
}

TEST(PadOp, RejectsWrongPadCount) {
  OpRun r = runOp("Pad", {randomTensor({2, 3}, 1), tensorFromInts({3}, {1, 1, 1})}, {}, 1, BackendType::kCPU, {false, true}, 13);
  EXPECT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("pads"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
