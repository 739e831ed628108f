// Equal Less Greater LessOrEqual GreaterOrEqual (bool output) and Where, with broadcasting.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "support/OpTest.hpp"

namespace tessera {
namespace {

using test::randomTensor;
using test::runOp;

int64_t broadcastOffset(int64_t i, const Shape& out, const Shape& in) {
  int64_t offset = 0, stride = 1;
  const size_t pad = out.size() - in.size();
  for (size_t d = out.size(); d-- > 0;) {
    const int64_t idx = i % out[d];
    i /= out[d];
    if (d < pad) continue;
    if (in[d - pad] != 1) offset += idx * stride;
    stride *= in[d - pad];
  }
  return offset;
}

Tensor toType(const Tensor& t, DataType dtype) {
  Tensor out = Tensor::hostAllocate(t.shape(), dtype);
  EXPECT_TRUE(convertDataType(t, out));
  return out;
}

// Small integers as floats so that equality happens often.
Tensor smallValues(const Shape& s, uint32_t seed) {
  Tensor t = randomTensor(s, seed, -3.f, 3.f);
  for (int64_t i = 0; i < t.elementCount(); ++i)
    t.data<float>()[i] = std::floor(t.data<float>()[i]);
  return t;
}

void checkCompare(const std::string& op, const Tensor& a, const Tensor& b,
                  const std::function<bool(double, double)>& f) {
  test::OpRun r = runOp(op, {a, b}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << op << ": " << r.status.message();
  const Tensor& y = r.outputs[0];
  ASSERT_EQ(y.dtype(), DataType::kBool);
  Shape shape;
  ASSERT_TRUE(broadcastShapes(a.shape(), b.shape(), &shape));
  ASSERT_EQ(y.shape(), shape);
  Tensor wa = toType(a, DataType::kF64), wb = toType(b, DataType::kF64);
  for (int64_t i = 0; i < y.elementCount(); ++i) {
    const double x = wa.data<double>()[broadcastOffset(i, shape, a.shape())];
    const double z = wb.data<double>()[broadcastOffset(i, shape, b.shape())];
    ASSERT_EQ(y.data<bool>()[i], f(x, z)) << op << " element " << i << ": " << x << " vs " << z;
  }
}

TEST(Compare, AllOpsBroadcast) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{3, 5, 7}, {3, 5, 7}}, {{3, 13, 5, 7}, {13, 1, 1}}, {{2, 1, 5}, {}}, {{5, 1}, {1, 6}}};
  uint32_t seed = 1;
  for (const auto& [sa, sb] : shapes) {
    const Tensor a = smallValues(sa, seed++), b = smallValues(sb, seed++);
    checkCompare("Equal", a, b, [](double x, double y) { return x == y; });
    checkCompare("Less", a, b, [](double x, double y) { return x < y; });
    checkCompare("Greater", a, b, [](double x, double y) { return x > y; });
    checkCompare("LessOrEqual", a, b, [](double x, double y) { return x <= y; });
    checkCompare("GreaterOrEqual", a, b, [](double x, double y) { return x >= y; });
    checkCompare("Equal", toType(a, DataType::kI32), toType(b, DataType::kI32),
                 [](double x, double y) { return x == y; });
    checkCompare("Less", toType(a, DataType::kI64), toType(b, DataType::kI64),
                 [](double x, double y) { return x < y; });
  }
}

TEST(Where, SelectsWithThreeWayBroadcast) {
  const Shape sc = {3, 1, 5}, sx = {4, 1}, sy = {1, 1, 5};
  Tensor cond = Tensor::hostAllocate(sc, DataType::kBool);
  for (int64_t i = 0; i < cond.elementCount(); ++i) cond.data<bool>()[i] = (i * 7) % 3 == 0;
  for (DataType dtype : {DataType::kF32, DataType::kI64, DataType::kU8}) {
    const Tensor x = toType(smallValues(sx, 1), dtype), y = toType(smallValues(sy, 2), dtype);
    test::OpRun r = runOp("Where", {cond, x, y}, {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    const Shape shape = {3, 4, 5};
    ASSERT_EQ(r.outputs[0].shape(), shape);
    Tensor out = toType(r.outputs[0], DataType::kF64);
    Tensor wx = toType(x, DataType::kF64), wy = toType(y, DataType::kF64);
    for (int64_t i = 0; i < 60; ++i) {
      const bool c = cond.data<bool>()[broadcastOffset(i, shape, sc)];
      const double e = c ? wx.data<double>()[broadcastOffset(i, shape, sx)]
                         : wy.data<double>()[broadcastOffset(i, shape, sy)];
      ASSERT_EQ(out.data<double>()[i], e) << i;
    }
  }
}

TEST(Where, LargeSameShape) {
  const Shape s = {3, 13, 31, 33};
  Tensor cond = Tensor::hostAllocate(s, DataType::kBool);
  for (int64_t i = 0; i < cond.elementCount(); ++i) cond.data<bool>()[i] = i % 5 < 2;
  const Tensor x = randomTensor(s, 3), y = randomTensor(s, 4);
  test::OpRun r = runOp("Where", {cond, x, y}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  for (int64_t i = 0; i < cond.elementCount(); ++i) {
    ASSERT_EQ(r.outputs[0].data<float>()[i],
              cond.data<bool>()[i] ? x.data<float>()[i] : y.data<float>()[i]);
  }
}

TEST(Where, RejectsNonBoolCondition) {
  test::OpRun r = runOp("Where", {randomTensor({3}, 1), randomTensor({3}, 2), randomTensor({3}, 3)},
                        {}, 1, BackendType::kCPU);
  EXPECT_FALSE(r.status.isOk());
}

}  // namespace
}  // namespace tessera
