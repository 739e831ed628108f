// Constant (every value attribute form) and ConstantOfShape.
#include <gtest/gtest.h>

#include "support/OpTest.hpp"

namespace tessera {
namespace {

test::OpRun runConstant(const Attributes& a) {
  return test::runOp("Constant", {}, a, 1, BackendType::kCPU);
}

TEST(Constant, ValueForms) {
  const Tensor value = test::randomTensor({5, 3}, 1);
  Attributes a;
  a.setTensor("value", value);
  test::OpRun r = runConstant(a);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], value, 0, 0);

  Attributes f;
  f.setFloat("value_float", 2.5f);
  r = runConstant(f);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], test::tensorFrom({}, {2.5f}), 0, 0);

  Attributes i;
  i.setInts("value_ints", {3, -1, 4});
  r = runConstant(i);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], test::tensorFromInts({3}, {3, -1, 4}), 0, 0);

  Attributes fs;
  fs.setFloats("value_floats", {1.f, 2.f});
  r = runConstant(fs);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], test::tensorFrom({2}, {1.f, 2.f}), 0, 0);

  Attributes one;
  one.setInt("value_int", 7);
  r = runConstant(one);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], test::tensorFromInts({}, {7}), 0, 0);
}

TEST(Constant, NeedsExactlyOneValue) {
  EXPECT_FALSE(runConstant({}).status.isOk());
  Attributes two;
  two.setFloat("value_float", 1.f);
  two.setInt("value_int", 1);
  EXPECT_FALSE(runConstant(two).status.isOk());
}

TEST(ConstantOfShape, FillsTheValue) {
  const Tensor shape = test::tensorFromInts({3}, {2, 3, 5});
  test::OpRun r = test::runOp("ConstantOfShape", {shape}, {}, 1, BackendType::kCPU, {true});
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  ASSERT_EQ(r.outputs[0].dtype(), DataType::kF32);
  test::expectClose(r.outputs[0], Tensor::hostAllocate({2, 3, 5}, DataType::kF32), 0, 0);

  Tensor value = Tensor::hostAllocate({1}, DataType::kI32);
  *value.data<int32_t>() = -4;
  Attributes a;
  a.setTensor("value", value);
  r = test::runOp("ConstantOfShape", {shape}, a, 1, BackendType::kCPU, {true});
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  ASSERT_EQ(r.outputs[0].dtype(), DataType::kI32);
  for (int64_t i = 0; i < 30; ++i) ASSERT_EQ(r.outputs[0].data<int32_t>()[i], -4);

  // An extent of 0 gives an empty tensor.
  r = test::runOp("ConstantOfShape", {test::tensorFromInts({2}, {0, 4})}, a, 1, BackendType::kCPU,
                  {true});
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_EQ(r.outputs[0].elementCount(), 0);
}

TEST(ConstantOfShape, RejectsNegativeExtents) {
  test::OpRun r = test::runOp("ConstantOfShape", {test::tensorFromInts({2}, {3, -1})}, {}, 1,
                              BackendType::kCPU, {true});
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("negative"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace tessera
