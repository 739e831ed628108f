// Shape with the opset-15 start/end slice.
#include <gtest/gtest.h>

#include "support/OpTest.hpp"

namespace tessera {
namespace {

void checkShape(int64_t start, int64_t end, bool hasEnd, const std::vector<int64_t>& expected) {
  Attributes a;
  a.setInt("start", start);
  if (hasEnd) a.setInt("end", end);
  test::OpRun r =
      test::runOp("Shape", {test::randomTensor({3, 4, 5}, 1)}, a, 1, BackendType::kCPU, {}, 15);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0],
                    test::tensorFromInts({static_cast<int64_t>(expected.size())}, expected), 0, 0,
                    "start " + std::to_string(start) + " end " + std::to_string(end));
}

TEST(Shape, StartAndEnd) {
  checkShape(0, 0, false, {3, 4, 5});
  checkShape(1, 0, false, {4, 5});
  checkShape(-1, 0, false, {5});
  checkShape(-10, 0, false, {3, 4, 5});
  checkShape(0, 1, true, {3});
  checkShape(0, -1, true, {3, 4});
  checkShape(1, 2, true, {4});
  checkShape(0, 10, true, {3, 4, 5});
  checkShape(2, 1, true, {});
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(Size, ElementCountOfAnyShape) {
  for (const Shape& s : {Shape{3, 4, 5}, Shape{}, Shape{7}, Shape{2, 0, 3}}) {
    test::OpRun r = test::runOp("Size", {test::randomTensor(s, 1)}, {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    int64_t count = 1;
    for (int64_t d : s) count *= d;
    test::expectClose(r.outputs[0], test::tensorFromInts({}, {count}), 0, 0, shapeToString(s));
  }
}

}  // namespace
}  // namespace tessera
