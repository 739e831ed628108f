// BroadcastPlan: every output element must map to the input elements numpy would pick,
// whatever the collapse did, for any split of the output range (as threads split it).
#include <gtest/gtest.h>

#include "backends/cpu/Broadcast.hpp"

namespace tessera {
namespace {

int64_t naiveOffset(int64_t i, const Shape& out, const Shape& in) {
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

void checkPlan(const std::vector<Shape>& inputs) {
  BroadcastPlan plan;
  ASSERT_TRUE(plan.init(inputs));
  const Shape& out = plan.outputShape();
  const int64_t n = plan.outputCount();
  ASSERT_EQ(n, elementCount(out));
  for (int64_t split : {int64_t{1}, int64_t{3}, int64_t{7}, n}) {
    if (split <= 0) continue;
    std::vector<int> seen(static_cast<size_t>(n), 0);
    for (int64_t begin = 0; begin < n; begin += split) {
      const int64_t end = std::min(n, begin + split);
      plan.forEachSpan(begin, end, [&](int64_t o, const int64_t* in, int64_t count) {
        ASSERT_GE(o, begin);
        ASSERT_LE(o + count, end);
        for (int64_t j = 0; j < count; ++j) {
          ++seen[static_cast<size_t>(o + j)];
          for (size_t k = 0; k < inputs.size(); ++k) {
            ASSERT_EQ(in[k] + j * plan.spanStride(static_cast<int>(k)),
                      naiveOffset(o + j, out, inputs[k]))
                << "input " << k << " output element " << o + j;
          }
        }
      });
    }
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[static_cast<size_t>(i)], 1) << i;
  }
}

TEST(BroadcastPlan, MatchesNumpyIndexing) {
  checkPlan({{3, 5, 7}, {3, 5, 7}});
  checkPlan({{2, 13, 5, 7}, {13, 1, 1}});
  checkPlan({{2, 3, 4}, {}});
  checkPlan({{}, {}});
  checkPlan({{1, 3, 1, 5}, {2, 1, 4, 1}});
  checkPlan({{5, 1}, {1, 6}});
  checkPlan({{3, 1, 7}, {3, 7}, {1}});
  checkPlan({{1, 1, 4}, {2, 1, 1}, {2, 3, 1}});
  checkPlan({{2, 1, 3, 1, 2}, {1, 4, 1, 5, 2}});
}

TEST(BroadcastPlan, CollapsesSameShapeToOneSpan) {
  BroadcastPlan plan;
  ASSERT_TRUE(plan.init({{3, 5, 7}, {3, 5, 7}}));
  EXPECT_EQ(plan.rowLength(), 105);
  ASSERT_TRUE(plan.init({{2, 13, 5, 7}, {13, 1, 1}}));
  EXPECT_EQ(plan.rowLength(), 35);
  EXPECT_EQ(plan.spanStride(1), 0);
}

TEST(BroadcastPlan, RejectsIncompatibleShapes) {
  BroadcastPlan plan;
  EXPECT_FALSE(plan.init({{3, 4}, {5}}));
  EXPECT_FALSE(plan.init({{2}, {2}, {2}, {2}}));  // more than kMaxInputs
}

}  // namespace
}  // namespace tessera
