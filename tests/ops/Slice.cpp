// Slice against a naive reference: negative indices, clamping, negative steps, default
// axes/steps, and opset 1 attributes.
#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

// The ONNX rule for one axis, written independently of the implementation: visit
// start, start+step, ... while inside [0, dim) and before end.
std::vector<int64_t> visited(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  std::vector<int64_t> out;
  if (step > 0) {
    start = std::max<int64_t>(0, start);
    end = std::min(end, dim);
    for (int64_t i = start; i < end; i += step) out.push_back(i);
  } else {
    start = std::min(start, dim - 1);
    end = std::max<int64_t>(-1, end);
    for (int64_t i = start; i > end; i += step) out.push_back(i);
  }
  return out;
}

struct SliceCase {
  std::vector<int64_t> starts, ends, axes, steps;
};

void checkSlice(const Tensor& x, const SliceCase& c, const std::string& what) {
  const int64_t rank = x.rank();
  std::vector<std::vector<int64_t>> picks(rank);
  for (int64_t d = 0; d < rank; ++d)
    for (int64_t i = 0; i < x.shape()[d]; ++i) picks[d].push_back(i);
  for (size_t i = 0; i < c.starts.size(); ++i) {
    int64_t axis = c.axes.empty() ? static_cast<int64_t>(i) : c.axes[i];
    if (axis < 0) axis += rank;
    const int64_t step = c.steps.empty() ? 1 : c.steps[i];
    picks[axis] = visited(x.shape()[axis], c.starts[i], c.ends[i], step);
  }
  Shape outShape;
  for (const auto& p : picks) outShape.push_back(static_cast<int64_t>(p.size()));
  const Tensor expected = movedReference(x, outShape, [&](std::vector<int64_t> idx) {
    for (int64_t d = 0; d < rank; ++d) idx[d] = picks[d][idx[d]];
    return ravelIndex(idx, x.shape());
  });
  const int64_t n = static_cast<int64_t>(c.starts.size());
  std::vector<Tensor> inputs = {x, tensorFromInts({n}, c.starts), tensorFromInts({n}, c.ends)};
  inputs.push_back(c.axes.empty() ? omittedInput() : tensorFromInts({n}, c.axes));
  inputs.push_back(c.steps.empty() ? omittedInput() : tensorFromInts({n}, c.steps));
  for (BackendType b : availableBackends()) {
    OpRun r = runOp("Slice", inputs, {}, 1, b, {false, true, true, true, true}, 13);
    ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
    expectSameBytes(r.outputs[0], expected, std::string(backendTypeName(b)) + " " + what);
  }
}

TEST(SliceOp, WindowsAndSteps) {
  const Tensor x = iotaTensor({3, 5, 13, 7}, DataType::kF32);
  checkSlice(x, {{0, 1}, {2, 4}, {0, 1}, {}}, "basic");
  checkSlice(x, {{1, -4}, {1000, -1}, {}, {}}, "default axes, clamped end");
  checkSlice(x, {{-100, 2}, {2, 100}, {2, -1}, {3, 2}}, "clamped start, steps");
  checkSlice(x, {{12, 6}, {-100, 0}, {2, 3}, {-2, -1}}, "negative steps to the start");
  checkSlice(x, {{4, 10}, {1, 10}, {1, 2}, {-1, 1}}, "negative step, empty on axis 2");
  checkSlice(x, {{2}, {2}, {-1}, {}}, "empty");
  checkSlice(x, {{1, 0, 0, 0}, {3, 5, 13, 7}, {0, 1, 2, 3}, {1, 1, 1, 1}}, "last dims whole");
  checkSlice(iotaTensor({20, 10, 5}, DataType::kI64),
             {{20, 10, 4}, {0, 0, 1}, {0, 1, 2}, {-1, -3, -2}}, "onnx neg steps, i64");
  checkSlice(iotaTensor({9}, DataType::kU8), {{-1}, {INT64_MIN}, {0}, {-1}}, "reverse u8");
}

TEST(SliceOp, AttributesBeforeOpset10) {
  const Tensor x = iotaTensor({3, 5, 4}, DataType::kF32);
  Attributes attrs;
  attrs.setInts("starts", {1, -3});
  attrs.setInts("ends", {100, -1});
  attrs.setInts("axes", {0, 2});
  OpRun r = runOp("Slice", {x}, attrs, 1, BackendType::kCPU, {}, 1);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  const Tensor expected = movedReference(x, {2, 5, 2}, [&](std::vector<int64_t> idx) {
    idx[0] += 1;
    idx[2] += 1;
    return ravelIndex(idx, x.shape());
  });
  expectSameBytes(r.outputs[0], expected, "opset 1");
}

TEST(SliceOp, ErrorsNameTheCause) {
  const Tensor x = randomTensor({4, 4}, 3);
  OpRun r = runOp("Slice", {x, tensorFromInts({1}, {0}), tensorFromInts({1}, {2}),
                            tensorFromInts({1}, {0}), tensorFromInts({1}, {0})},
                  {}, 1, BackendType::kCPU, {false, true, true, true, true});
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("step"), std::string::npos) << r.status.message();
  // Window inputs fed at run time: the Session specializes on their values.
  r = runOp("Slice", {x, tensorFromInts({1}, {1}), tensorFromInts({1}, {3})}, {}, 1,
            BackendType::kCPU, {false, false, true});
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  const Tensor expected = movedReference(x, {2, 4}, [&](std::vector<int64_t> idx) {
    idx[0] += 1;
    return ravelIndex(idx, x.shape());
  });
  expectSameBytes(r.outputs[0], expected, "run-time starts");
}

}  // namespace
}  // namespace test
}  // namespace tessera
