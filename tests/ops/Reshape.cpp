// Reshape, Flatten, Squeeze and Unsqueeze: the bytes never change, so each test checks
// the output shape and that the data came through untouched.
#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor withShape(const Tensor& x, const Shape& s) {
  Tensor t = x;
  t.reshape(s);
  return t;
}

void checkReshape(const Tensor& x, const std::vector<int64_t>& requested, const Shape& expected,
                  bool allowZero) {
  Attributes attrs;
  if (allowZero) attrs.setInt("allowzero", 1);
  const int64_t n = static_cast<int64_t>(requested.size());
  for (BackendType b : availableBackends()) {
    OpRun r = runOp("Reshape", {x, tensorFromInts({n}, requested)}, attrs, 1, b, {false, true}, 14);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectSameBytes(r.outputs[0], withShape(x, expected),
                    std::string(backendTypeName(b)) + " reshape to " + shapeToString(expected));
  }
}

TEST(ReshapeOp, ZeroAndMinusOne) {
  const Tensor x = iotaTensor({3, 5, 1, 13}, DataType::kF32);
  checkReshape(x, {195}, {195}, false);
  checkReshape(x, {0, -1}, {3, 65}, false);
  checkReshape(x, {-1, 13}, {15, 13}, false);
  checkReshape(x, {0, 0, 0, 0}, {3, 5, 1, 13}, false);
  checkReshape(x, {13, 0, -1}, {13, 5, 3}, false);
  checkReshape(iotaTensor({3, 1, 5}, DataType::kI64), {1, 15, 1}, {1, 15, 1}, false);
  checkReshape(iotaTensor({0, 3, 4}, DataType::kF32), {3, 4, 0}, {3, 4, 0}, true);
}

TEST(ReshapeOp, ErrorsNameTheCause) {
  const Tensor x = randomTensor({2, 3}, 1);
  OpRun r = runOp("Reshape", {x, tensorFromInts({2}, {4, -1})}, {}, 1, BackendType::kCPU,
                  {false, true});
  EXPECT_FALSE(r.status.isOk());
  r = runOp("Reshape", {x, tensorFromInts({2}, {-1, -1})}, {}, 1, BackendType::kCPU, {false, true});
  EXPECT_FALSE(r.status.isOk());
  // A shape fed at run time: the Session specializes on its value.
  r = runOp("Reshape", {x, tensorFromInts({2}, {3, 2})}, {}, 1, BackendType::kCPU, {false, false});
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], withShape(x, {3, 2}), "run-time shape");
}

TEST(FlattenOp, EveryAxis) {
  const Tensor x = iotaTensor({3, 5, 7, 2}, DataType::kU8);
  const std::vector<Shape> expected = {{1, 210}, {3, 70}, {15, 14}, {105, 2}, {210, 1}};
  for (BackendType b : availableBackends()) {
    for (int64_t axis = -4; axis <= 4; ++axis) {
      Attributes attrs;
      attrs.setInt("axis", axis);
      OpRun r = runOp("Flatten", {x}, attrs, 1, b);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectSameBytes(r.outputs[0], withShape(x, expected[axis < 0 ? axis + 4 : axis]),
                      "axis " + std::to_string(axis));
    }
  }
  Attributes attrs;
  attrs.setInt("axis", 5);
  EXPECT_FALSE(runOp("Flatten", {x}, attrs, 1, BackendType::kCPU).status.isOk());
}

TEST(SqueezeOp, AxesInputAttributeAndAll) {
  const Tensor x = iotaTensor({1, 3, 1, 5, 1}, DataType::kF32);
  for (BackendType b : availableBackends()) {
    OpRun r = runOp("Squeeze", {x, tensorFromInts({2}, {0, -1})}, {}, 1, b, {false, true}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectSameBytes(r.outputs[0], withShape(x, {3, 1, 5}), "opset 13 axes input");
    r = runOp("Squeeze", {x}, {}, 1, b, {}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectSameBytes(r.outputs[0], withShape(x, {3, 5}), "no axes: all ones");
    Attributes attrs;
    attrs.setInts("axes", {2});
    r = runOp("Squeeze", {x}, attrs, 1, b, {}, 11);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectSameBytes(r.outputs[0], withShape(x, {1, 3, 5, 1}), "opset 11 attribute");
  }
  OpRun r = runOp("Squeeze", {x, tensorFromInts({1}, {1})}, {}, 1, BackendType::kCPU,
                  {false, true}, 13);
  EXPECT_FALSE(r.status.isOk());  // extent 3 cannot be squeezed
}

TEST(UnsqueezeOp, AxesIndexTheOutput) {
  const Tensor x = iotaTensor({3, 5}, DataType::kI64);
  for (BackendType b : availableBackends()) {
    OpRun r = runOp("Unsqueeze", {x, tensorFromInts({3}, {4, 0, -3})}, {}, 1, b, {false, true}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectSameBytes(r.outputs[0], withShape(x, {1, 3, 1, 5, 1}), "unsorted, negative");
    Attributes attrs;
    attrs.setInts("axes", {1});
    r = runOp("Unsqueeze", {x}, attrs, 1, b, {}, 11);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectSameBytes(r.outputs[0], withShape(x, {3, 1, 5}), "opset 11 attribute");
  }
  OpRun r = runOp("Unsqueeze", {x, tensorFromInts({2}, {1, 1})}, {}, 1, BackendType::kCPU,
                  {false, true}, 13);
  EXPECT_FALSE(r.status.isOk());  // repeated axis
}

}  // namespace
}  // namespace test
}  // namespace tessera
