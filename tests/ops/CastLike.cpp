// CastLike: every pair of dtypes (floats, 16-bit floats, signed and unsigned integers, bool)
// against a naive conversion in double: truncation toward zero, wrapping into the target's
// width, "!= 0" for bool. The second input only lends its dtype (a scalar here).
#include <gtest/gtest.h>

#include <cmath>

#include "NaiveIndex.hpp"
#include "TypedTensor.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

int bitsOf(DataType t) { return static_cast<int>(dataTypeSize(t)) * 8; }

// numpy's astype on a value exact in both types.
double naiveCast(double v, DataType to) {
  if (to == DataType::kBool) return v != 0 ? 1 : 0;
  if (isFloat(to)) return v;
  const int64_t t = static_cast<int64_t>(std::trunc(v));
  const int bits = bitsOf(to);
  if (bits == 64) return isSignedType(to) ? static_cast<double>(t) : static_cast<double>(static_cast<uint64_t>(t));
  const int64_t span = int64_t{1} << bits;
  int64_t w = ((t % span) + span) % span;              // in [0, 2^bits)
  if (isSignedType(to) && w >= span / 2) w -= span;  // two's complement
  return static_cast<double>(w);
}

TEST(CastLikeOp, EveryPairOfDtypesAgainstNaive) {
  std::vector<DataType> types = {DataType::kF32, DataType::kF64, DataType::kF16, DataType::kBF16, DataType::kBool};
  for (DataType t : integerTypes()) types.push_back(t);
  // Exact in every float type; negatives and fractions exercise truncation and wrapping.
  const std::vector<double> signedPool = {0, 1, -1, 2.5, -3.5, 7, 100, -100, 0.5, -0.5, 3, 42, 120, -128, 127};
  // Wrapped negatives that doubles (u64) or a truncated bf16 (u16 -> bf16) cannot hold
  // exactly are left to NegativeToUnsigned64.
  const std::vector<double> unsignedPool = {0, 1, 2.5, 7, 100, 0.5, 3, 42, 120, 127, 64};
  for (const Shape& shape : {Shape{3, 13}, Shape{2, 3, 5, 7}, Shape{}}) {
    for (DataType from : types) {
      for (DataType to : types) {
        const bool inexact = from == DataType::kU64 || to == DataType::kU64 ||
                             (to == DataType::kBF16 && isInteger(from) && !isSignedType(from));
        const std::vector<double>& pool = inexact ? unsignedPool : signedPool;
        const Tensor x = typedTensor(shape, from, [&](int64_t i) { return pool[i % pool.size()]; });
        const std::vector<double> xs = toDoubles(x);
        const Tensor like = typedTensor({}, to, [](int64_t) { return 0; });
        const Tensor expected = typedTensor(shape, to, [&](int64_t i) { return naiveCast(xs[i], to); });
        OpRun r = runOp("CastLike", {x, like}, {}, 1, BackendType::kCPU);
        const std::string what = std::string(dataTypeName(from)) + " -> " + dataTypeName(to) + " " + shapeToString(shape);
        ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
        EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
        expectSameBytes(r.outputs[0], expected, what);
      }
    }
  }
}

// Negative values into u64 wrap (numpy's astype), exactly.
TEST(CastLikeOp, NegativeToUnsigned64) {
  const Tensor like = Tensor::hostAllocate({1}, DataType::kU64);
  for (DataType from : {DataType::kI8, DataType::kI64, DataType::kF32, DataType::kF64}) {
    const Tensor x = typedTensor({4}, from, [](int64_t i) { return -1.0 - 2 * static_cast<double>(i); });
    OpRun r = runOp("CastLike", {x, like}, {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(r.outputs[0].data<uint64_t>()[i], ~uint64_t{0} - 2 * static_cast<uint64_t>(i)) << dataTypeName(from);
  }
}

TEST(CastLikeOp, BadInputsFailNamingTheNode) {
  OpRun r = runOp("CastLike", {randomTensor({3}, 1)}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("CastLike"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("target_type"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
