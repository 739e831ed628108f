// ReverseSequence with time first and batch first, ranks 2 to 4 with odd extents, lengths
// from 0 to the full time extent, int64 and int32 lengths, f32 and int64 data, against a
// naive reference; lengths outside [0, time] and malformed inputs fail naming the node.
#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor lengthTensor(const std::vector<int64_t>& v, DataType dt) {
  const Shape s = {static_cast<int64_t>(v.size())};
  if (dt == DataType::kI64) return filledTensor<int64_t>(s, [&](int64_t i) { return v[i]; });
  return filledTensor<int32_t>(s, [&](int64_t i) { return v[i]; });
}

TEST(ReverseSequenceOp, BothAxisOrdersAgainstNaive) {
  for (const Shape& shape : {Shape{5, 3}, Shape{4, 3, 2, 3}, Shape{7, 2, 5}, Shape{1, 4}}) {
    for (int64_t timeAxis = 0; timeAxis < 2; ++timeAxis) {
      const int64_t batchAxis = 1 - timeAxis;
      const int64_t T = shape[timeAxis], B = shape[batchAxis];
      std::vector<int64_t> lens;
      for (int64_t b = 0; b < B; ++b) lens.push_back((b * 3 + 1) % (T + 1));  // 0 and T included
      if (B > 1) lens[B - 1] = T;
      for (DataType dt : {DataType::kF32, DataType::kI64}) {
        const Tensor x = iotaTensor(shape, dt);
        const Tensor expected = movedReference(x, shape, [&](std::vector<int64_t> pos) {
          const int64_t t = pos[timeAxis], len = lens[pos[batchAxis]];
          if (t < len) pos[timeAxis] = len - 1 - t;
          return ravelIndex(pos, shape);
        });
        for (DataType lt : {DataType::kI64, DataType::kI32}) {
          Attributes attrs;
          attrs.setInt("time_axis", timeAxis);
          attrs.setInt("batch_axis", batchAxis);
          OpRun r = runOp("ReverseSequence", {x, lengthTensor(lens, lt)}, attrs, 1, BackendType::kCPU);
          const std::string what = shapeToString(shape) + " time_axis " + std::to_string(timeAxis) + " " +
                                   dataTypeName(dt) + " " + dataTypeName(lt);
          ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
          ASSERT_EQ(r.report.nodes.size(), 1u);
          EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
          expectSameBytes(r.outputs[0], expected, what);
        }
      }
    }
  }
}

TEST(ReverseSequenceOp, BadInputsFailNamingTheNode) {
  const Tensor x = randomTensor({4, 3}, 1);  // time 4, batch 3 by default
  OpRun r = runOp("ReverseSequence", {x, tensorFromInts({3}, {1, 5, 2})}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("ReverseSequence"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("'sequence_lens' holds 5"), std::string::npos) << r.status.message();
  EXPECT_FALSE(runOp("ReverseSequence", {x, tensorFromInts({3}, {1, -1, 2})}, {}, 1, BackendType::kCPU).status.isOk());
  // one length per batch; axes must be 0 and 1; rank 2 at least.
  EXPECT_FALSE(
      runOp("ReverseSequence", {x, tensorFromInts({4}, {1, 1, 1, 1})}, {}, 1, BackendType::kCPU).status.isOk());
  Attributes same;
  same.setInt("time_axis", 1);
  r = runOp("ReverseSequence", {x, tensorFromInts({3}, {1, 1, 1})}, same, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("time_axis"), std::string::npos) << r.status.message();
  EXPECT_FALSE(runOp("ReverseSequence", {randomTensor({4}, 1), tensorFromInts({4}, {1, 1, 1, 1})}, {}, 1,
                     BackendType::kCPU).status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
