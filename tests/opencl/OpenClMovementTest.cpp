// OpenCL data movement (Concat, Split, Transpose, Slice, Reshape family, DepthToSpace,
// SpaceToDepth) against the CPU reference, f32 and integer elements.
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace {

using test::expectOpenClMatchesCpu;
using test::ints;
using test::randomTensor;

TEST(OpenClMovement, ConcatSplitOnEveryAxis) {
  REQUIRE_OPENCL();
  for (int64_t axis = 0; axis < 4; ++axis) {
    Shape a{3, 5, 7, 3}, b = a;
    b[axis] = 2;
    Attributes at;
    at.setInt("axis", axis);
    expectOpenClMatchesCpu("Concat", {randomTensor(a, 40), randomTensor(b, 41), randomTensor(a, 42)}, at,
                           "Concat axis " + std::to_string(axis));
    Attributes sp = at;
    sp.setInts("split", {1, a[axis] - 1});
    expectOpenClMatchesCpu("Split", {randomTensor(a, 43)}, sp, "Split axis " + std::to_string(axis), {}, 2, 11);
  }
  const Tensor i64 = test::tensorFromInts({2, 3}, {1, 2, 3, 4, 5, 6});
  Attributes at;
  at.setInt("axis", 1);
  expectOpenClMatchesCpu("Concat", {i64, i64}, at, "Concat i64");
}

TEST(OpenClMovement, TransposeSliceReshape) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({3, 5, 7, 2}, 44);
  expectOpenClMatchesCpu("Transpose", {x}, ints("perm", {0, 2, 3, 1}), "Transpose 0231");
  expectOpenClMatchesCpu("Transpose", {x}, {}, "Transpose reversed");
  const Tensor starts = test::tensorFromInts({2}, {1, -1}), ends = test::tensorFromInts({2}, {5, 0});
  const Tensor axes = test::tensorFromInts({2}, {1, 2}), steps = test::tensorFromInts({2}, {2, -2});
  expectOpenClMatchesCpu("Slice", {x, starts, ends, axes, steps}, {}, "Slice", {false, true, true, true, true});
  expectOpenClMatchesCpu("Reshape", {x, test::tensorFromInts({3}, {15, -1, 2})}, {}, "Reshape", {false, true});
  expectOpenClMatchesCpu("Flatten", {x}, {}, "Flatten");
}

TEST(OpenClMovement, DepthToSpaceSpaceToDepth) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({3, 8, 3, 5}, 45);
  Attributes a;
  a.setInt("blocksize", 2);
  expectOpenClMatchesCpu("DepthToSpace", {x}, a, "DepthToSpace DCR");
  Attributes crd = a;
  crd.setString("mode", "CRD");
  expectOpenClMatchesCpu("DepthToSpace", {x}, crd, "DepthToSpace CRD");
  expectOpenClMatchesCpu("SpaceToDepth", {randomTensor({3, 5, 4, 6}, 46)}, a, "SpaceToDepth");
}

TEST(OpenClMovement, GatherExpand) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({3, 5, 7}, 48);
  const Tensor idx = test::tensorFromInts({2, 2}, {2, -1, 0, 1});
  for (int64_t axis : {0, 1, 2}) {
    Attributes a;
    a.setInt("axis", axis);
    expectOpenClMatchesCpu("Gather", {x, idx}, a, "Gather axis " + std::to_string(axis), {false, false});
  }
  expectOpenClMatchesCpu("Expand", {randomTensor({5, 1}, 49), test::tensorFromInts({3}, {3, 5, 4})}, {}, "Expand",
                         {false, true});
}

TEST(OpenClMovement, WhereBroadcasts) {
  REQUIRE_OPENCL();
  Tensor cond = Tensor::hostAllocate({3, 1, 4}, DataType::kBool);
  for (int64_t i = 0; i < cond.elementCount(); ++i) cond.data<uint8_t>()[i] = (i * 7 + 1) % 3 == 0;
  expectOpenClMatchesCpu("Where", {cond, randomTensor({5, 4}, 50), randomTensor({3, 5, 1}, 51)}, {}, "Where");
}

TEST(OpenClMovement, PadModes) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({3, 5, 4, 3}, 47);
  const Tensor pads = test::tensorFromInts({8}, {0, 1, 2, 1, 0, 2, 1, -1});
  for (const char* mode : {"constant", "edge", "reflect"}) {
    Attributes a;
    a.setString("mode", mode);
    expectOpenClMatchesCpu("Pad", {x, pads, test::tensorFrom({}, {0.5f})}, a, std::string("Pad ") + mode,
                           {false, true, true}, 1, 13);
  }
}

}  // namespace
}  // namespace tessera
