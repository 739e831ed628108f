// And Or Xor with broadcasting on each axis and Not, against a naive reference; IsNaN and
// IsInf (with detect_positive / detect_negative) on f32 and f16; non-bool input is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor boolTensor(const Shape& shape, uint32_t seed) {
  return filledTensor<bool>(shape, [seed](int64_t i) { return ((i * 2654435761u + seed) >> 7) % 3 == 0; });
}

// Broadcast offset of output multi-index `o` into a tensor of `shape` (right-aligned).
int64_t broadcastOffset(const std::vector<int64_t>& o, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  const size_t lead = o.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) idx[d] = shape[d] == 1 ? 0 : o[lead + d];
  return ravelIndex(idx, shape);
}

TEST(LogicOp, AndOrXorBroadcastAgainstNaive) {
  const Shape full = {3, 5, 1, 7};
  for (const Shape& other : {Shape{3, 5, 1, 7}, Shape{1, 5, 1, 1}, Shape{7}, Shape{}, Shape{3, 1, 4, 1}}) {
    const Tensor a = boolTensor(full, 1), b = boolTensor(other, 2);
    Shape out;
    ASSERT_TRUE(broadcastShapes(full, other, &out));
    for (const char* op : {"And", "Or", "Xor"}) {
      const std::string name = op;
      Tensor expected = Tensor::hostAllocate(out, DataType::kBool);
      for (int64_t i = 0; i < expected.elementCount(); ++i) {
        const std::vector<int64_t> o = unravelIndex(i, out);
        const bool p = a.data<bool>()[broadcastOffset(o, full)], q = b.data<bool>()[broadcastOffset(o, other)];
        expected.data<bool>()[i] = name == "And" ? (p && q) : name == "Or" ? (p || q) : (p != q);
      }
      OpRun r = runOp(op, {a, b}, {}, 1, BackendType::kCPU);
      ASSERT_TRUE(r.status.isOk()) << op << ": " << r.status.message();
      EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
      expectSameBytes(r.outputs[0], expected, name + " with " + shapeToString(other));
    }
  }
  const Tensor x = boolTensor({2, 3, 5}, 3);
  OpRun r = runOp("Not", {x}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  for (int64_t i = 0; i < x.elementCount(); ++i) EXPECT_EQ(r.outputs[0].data<bool>()[i], !x.data<bool>()[i]) << i;
}

TEST(LogicOp, NonBoolInputIsRefused) {
  OpRun r = runOp("And", {randomTensor({3}, 1), randomTensor({3}, 2)}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("must be bool"), std::string::npos) << r.status.message();
  EXPECT_FALSE(runOp("Not", {tensorFromInts({2}, {0, 1})}, {}, 1, BackendType::kCPU).status.isOk());
  EXPECT_FALSE(runOp("IsNaN", {tensorFromInts({2}, {0, 1})}, {}, 1, BackendType::kCPU).status.isOk());
}

TEST(LogicOp, IsNaNAndIsInfWithTheirAttributes) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> v = {1.f, -inf, inf, nan, 0.f, -2.5f, -nan};
  const Tensor x = tensorFrom({7}, v);
  Tensor h = Tensor::hostAllocate({7}, DataType::kF16);
  for (int i = 0; i < 7; ++i) h.data<uint16_t>()[i] = floatToHalf(v[i]);
  for (const Tensor& in : {x, h}) {
    OpRun r = runOp("IsNaN", {in}, {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    for (int i = 0; i < 7; ++i) EXPECT_EQ(r.outputs[0].data<bool>()[i], std::isnan(v[i])) << "IsNaN " << i;
    for (int pos = 0; pos < 2; ++pos)
      for (int neg = 0; neg < 2; ++neg) {
        Attributes a;
        a.setInt("detect_positive", pos);
        a.setInt("detect_negative", neg);
        r = runOp("IsInf", {in}, a, 1, BackendType::kCPU);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        for (int i = 0; i < 7; ++i)
          EXPECT_EQ(r.outputs[0].data<bool>()[i], std::isinf(v[i]) && (v[i] > 0 ? pos : neg))
              << "IsInf pos " << pos << " neg " << neg << " element " << i;
      }
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
