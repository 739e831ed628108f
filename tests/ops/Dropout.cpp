// Dropout at inference: identity output, all-true mask.
#include <gtest/gtest.h>

#include "support/OpTest.hpp"

namespace tessera {
namespace {

TEST(Dropout, IsIdentityWithAllTrueMask) {
  const Tensor x = test::randomTensor({3, 5, 7}, 1);
  const Tensor ratio = test::tensorFrom({}, {0.3f});
  test::OpRun r = test::runOp("Dropout", {x, ratio}, {}, 2, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], x, 0, 0);
  ASSERT_EQ(r.outputs[1].dtype(), DataType::kBool);
  ASSERT_EQ(r.outputs[1].shape(), x.shape());
  for (int64_t i = 0; i < x.elementCount(); ++i) ASSERT_TRUE(r.outputs[1].data<bool>()[i]);
  // Opset 11 (ratio as attribute), one output.
  Attributes a;
  a.setFloat("ratio", 0.2f);
  r = test::runOp("Dropout", {x}, a, 1, BackendType::kCPU, {}, 11);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], x, 0, 0);
}

TEST(Dropout, TrainingModeIsUnsupported) {
  Tensor training = Tensor::hostAllocate({}, DataType::kBool);
  *training.data<bool>() = true;
  test::OpRun r =
      test::runOp("Dropout", {test::randomTensor({4}, 1), test::tensorFrom({}, {0.5f}), training},
                  {}, 1, BackendType::kCPU, {false, true, true});
  ASSERT_FALSE(r.status.isOk());
  EXPECT_EQ(r.status.code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace tessera
