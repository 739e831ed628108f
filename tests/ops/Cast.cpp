// Cast between the numeric types, with numpy's astype rules; f16/bf16 conversions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "support/OpTest.hpp"

namespace tessera {
namespace {

using test::runOp;

Attributes castTo(int onnxType) {
  Attributes a;
  a.setInt("to", onnxType);
  return a;
}

Tensor castOnce(const Tensor& x, int onnxType) {
  test::OpRun r = runOp("Cast", {x}, castTo(onnxType), 1, BackendType::kCPU);
  EXPECT_TRUE(r.status.isOk()) << r.status.message();
  return r.status.isOk() ? r.outputs[0] : Tensor();
}

TEST(Cast, FloatToIntegersTruncatesTowardZero) {
  const Tensor x = test::tensorFrom({2, 3}, {1.7f, -1.7f, 2.5f, -0.5f, 100.9f, 0.f});
  const Tensor y = castOnce(x, 6);  // INT32
  ASSERT_EQ(y.dtype(), DataType::kI32);
  const int32_t expected[] = {1, -1, 2, 0, 100, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y.data<int32_t>()[i], expected[i]) << i;
  const Tensor z = castOnce(x, 7);  // INT64
  EXPECT_EQ(z.data<int64_t>()[4], 100);
  const Tensor u = castOnce(test::tensorFrom({2}, {300.f, -1.f}), 2);  // UINT8 wraps
  EXPECT_EQ(u.data<uint8_t>()[0], 44);
  EXPECT_EQ(u.data<uint8_t>()[1], 255);
}

TEST(Cast, ToAndFromBool) {
  const Tensor x = test::tensorFrom({4}, {0.f, -2.f, NAN, 0.5f});
  const Tensor b = castOnce(x, 9);  // BOOL
  ASSERT_EQ(b.dtype(), DataType::kBool);
  EXPECT_FALSE(b.data<bool>()[0]);
  EXPECT_TRUE(b.data<bool>()[1]);
  EXPECT_TRUE(b.data<bool>()[2]);
  EXPECT_TRUE(b.data<bool>()[3]);
  const Tensor f = castOnce(b, 11);  // DOUBLE
  EXPECT_EQ(f.data<double>()[0], 0.0);
  EXPECT_EQ(f.data<double>()[1], 1.0);
}

TEST(Cast, IntegersNarrowByWrapping) {
  const Tensor x = test::tensorFromInts({3}, {-1, 70000, 4294967297LL});
  const Tensor i16 = castOnce(x, 5);
  EXPECT_EQ(i16.data<int16_t>()[0], -1);
  EXPECT_EQ(i16.data<int16_t>()[1], static_cast<int16_t>(70000 - 65536));
  const Tensor u32 = castOnce(x, 12);
  EXPECT_EQ(u32.data<uint32_t>()[0], 0xffffffffu);
  EXPECT_EQ(u32.data<uint32_t>()[2], 1u);
  const Tensor u64 = castOnce(x, 13);
  EXPECT_EQ(u64.data<uint64_t>()[0], ~uint64_t{0});
  // Large int64 values survive a round trip through uint64 (no detour through double).
  const Tensor big = test::tensorFromInts({1}, {9007199254740993LL});
  EXPECT_EQ(castOnce(castOnce(big, 13), 7).data<int64_t>()[0], 9007199254740993LL);
}

TEST(Cast, HalfAndBFloat16) {
  const Tensor x = test::randomTensor({3, 5, 7}, 5, -100.f, 100.f);
  const Tensor h = castOnce(x, 10);  // FLOAT16
  ASSERT_EQ(h.dtype(), DataType::kF16);
  const Tensor back = castOnce(h, 1);
  test::expectClose(back, x, 1e-3, 1e-3, "f32 -> f16 -> f32");
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    EXPECT_EQ(h.data<uint16_t>()[i], floatToHalf(x.data<float>()[i])) << i;
  }
  const Tensor bf = castOnce(x, 16);  // BFLOAT16: truncated, as ONNX's reference does
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &x.data<float>()[i], 4);
    EXPECT_EQ(bf.data<uint16_t>()[i], static_cast<uint16_t>(bits >> 16)) << i;
  }
  const Tensor d = castOnce(h, 11);  // f16 -> f64 exactly
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    EXPECT_EQ(d.data<double>()[i], static_cast<double>(halfToFloat(h.data<uint16_t>()[i])));
  }
}

TEST(Cast, StringsAreUnsupported) {
  test::OpRun r = runOp("Cast", {test::tensorFrom({2}, {1.f, 2.f})}, castTo(8), 1,
                        BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_EQ(r.status.code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status.message().find("string tensors are not supported"), std::string::npos);
}

}  // namespace
}  // namespace tessera
