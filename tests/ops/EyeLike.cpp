// EyeLike: square and non-square (and empty) matrices, k from beyond the matrix below to
// beyond it above, the input's dtype and each `dtype` attribute value we support, against a
// naive j - i == k; bad inputs fail naming the node.
#include <gtest/gtest.h>

#include <limits>

#include "NaiveIndex.hpp"
#include "TypedTensor.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor eyeReference(const Shape& s, DataType t, int64_t k) {
  return typedTensor(s, t, [&](int64_t e) { return e % s[1] - e / s[1] == k ? 1 : 0; });
}

TEST(EyeLikeOp, EveryKAndDtypeAgainstNaive) {
  // ONNX TensorProto types and ours.
  const std::vector<std::pair<int64_t, DataType>> targets = {
      {1, DataType::kF32},  {2, DataType::kU8},   {3, DataType::kI8},   {4, DataType::kU16},  {5, DataType::kI16},
      {6, DataType::kI32},  {7, DataType::kI64},  {9, DataType::kBool}, {10, DataType::kF16}, {11, DataType::kF64},
      {12, DataType::kU32}, {13, DataType::kU64}, {16, DataType::kBF16}};
  for (const Shape& shape : {Shape{4, 4}, Shape{3, 7}, Shape{7, 3}, Shape{1, 5}, Shape{5, 1}, Shape{0, 3}}) {
    for (int64_t k = -9; k <= 9; ++k) {
      for (DataType in : {DataType::kF32, DataType::kI64, DataType::kI32, DataType::kF16}) {
        Attributes attrs;
        attrs.setInt("k", k);
        const Tensor x = typedTensor(shape, in, [](int64_t i) { return i + 3; });
        OpRun r = runOp("EyeLike", {x}, attrs, 1, BackendType::kCPU);
        const std::string what = shapeToString(shape) + " k " + std::to_string(k) + " " + dataTypeName(in);
        ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
        EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
        expectSameBytes(r.outputs[0], eyeReference(shape, in, k), what);
      }
      for (const auto& [onnx, t] : targets) {
        Attributes attrs;
        attrs.setInt("k", k);
        attrs.setInt("dtype", onnx);
        OpRun r = runOp("EyeLike", {randomTensor(shape, 1)}, attrs, 1, BackendType::kCPU);
        const std::string what = shapeToString(shape) + " k " + std::to_string(k) + " to " + dataTypeName(t);
        ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
        expectSameBytes(r.outputs[0], eyeReference(shape, t, k), what);
      }
    }
  }
}

// k at int64's limits: an all-zero matrix, no overflow.
TEST(EyeLikeOp, ExtremeK) {
  for (int64_t k : {std::numeric_limits<int64_t>::lowest(), std::numeric_limits<int64_t>::max()}) {
    Attributes attrs;
    attrs.setInt("k", k);
    OpRun r = runOp("EyeLike", {randomTensor({3, 4}, 1)}, attrs, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectSameBytes(r.outputs[0], typedTensor({3, 4}, DataType::kF32, [](int64_t) { return 0; }), std::to_string(k));
  }
}

TEST(EyeLikeOp, BadInputsFailNamingTheNode) {
  OpRun r = runOp("EyeLike", {randomTensor({5}, 1)}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("EyeLike 'op'"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("2-D"), std::string::npos) << r.status.message();
  EXPECT_FALSE(runOp("EyeLike", {randomTensor({2, 3, 4}, 1)}, {}, 1, BackendType::kCPU).status.isOk());
  for (int64_t bad : {8, 99}) {  // string, unknown
    Attributes attrs;
    attrs.setInt("dtype", bad);
    r = runOp("EyeLike", {randomTensor({3, 3}, 1)}, attrs, 1, BackendType::kCPU);
    ASSERT_FALSE(r.status.isOk()) << bad;
    EXPECT_NE(r.status.message().find("EyeLike 'op'"), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find("dtype " + std::to_string(bad)), std::string::npos) << r.status.message();
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
