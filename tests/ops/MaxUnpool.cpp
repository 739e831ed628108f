// MaxUnpool in 1-D, 2-D and 3-D with odd extents, strides, asymmetric pads, batch 2 and three
// channels, duplicate indices, with and without an output_shape input (constant, and fed at
// run time), f32 and int64 data, against a naive reference; indices outside the unpooled
// tensor and malformed inputs fail naming the node.
#include <gtest/gtest.h>

#include <cstring>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

struct Case {
  Shape x;
  std::vector<int64_t> kernel, strides, pads;
  Shape unpooled;  // worked out by hand from the formula
};

// Zeros of outShape with X's elements written at I's offsets into `unpooled`, in order.
Tensor unpoolReference(const Tensor& x, const std::vector<int64_t>& idx, const Shape& unpooled, const Shape& outShape) {
  Tensor y = Tensor::hostAllocate(outShape, x.dtype());
  const size_t eb = dataTypeSize(x.dtype());
  std::memset(y.data(), 0, static_cast<size_t>(y.elementCount()) * eb);
  for (int64_t j = 0; j < x.elementCount(); ++j) {
    const int64_t o = ravelIndex(unravelIndex(idx[j], unpooled), outShape);
    std::memcpy(y.data<char>() + o * eb, x.data<char>() + j * eb, eb);
  }
  return y;
}

Attributes attrsOf(const Case& c) {
  Attributes a;
  a.setInts("kernel_shape", c.kernel);
  if (!c.strides.empty()) a.setInts("strides", c.strides);
  if (!c.pads.empty()) a.setInts("pads", c.pads);
  return a;
}

TEST(MaxUnpoolOp, WithAndWithoutOutputShapeAgainstNaive) {
  const std::vector<Case> cases = {
      {{2, 3, 7}, {3}, {2}, {}, {2, 3, 15}},                                  // (7-1)*2+3
      {{2, 3, 3, 5}, {2, 3}, {2, 2}, {0, 1, 1, 0}, {2, 3, 5, 10}},            // (3-1)*2-1+2, (5-1)*2-1+3
      {{1, 1, 2, 2}, {2, 2}, {2, 2}, {}, {1, 1, 4, 4}},                       // the ONNX example
      {{2, 1, 2, 3, 2}, {2, 2, 3}, {1, 2, 2}, {0, 0, 1, 1, 0, 0}, {2, 1, 2, 6, 4}},
      {{1, 2, 5, 5}, {1, 1}, {}, {}, {1, 2, 5, 5}},                           // default strides
  };
  for (const Case& c : cases) {
    const int64_t total = elementCount(c.unpooled);
    std::vector<int64_t> idx(static_cast<size_t>(elementCount(c.x)));
    for (size_t j = 0; j < idx.size(); ++j) idx[j] = static_cast<int64_t>(j * 7 + 3) % total;  // duplicates too
    idx.back() = total - 1;
    const Tensor indices = tensorFromInts(c.x, idx);
    Shape bigger = c.unpooled;
    for (size_t d = 2; d < bigger.size(); ++d) bigger[d] += static_cast<int64_t>(d);  // a larger output_shape
    for (DataType dt : {DataType::kF32, DataType::kI64}) {
      const Tensor x = dt == DataType::kF32 ? randomTensor(c.x, 3, 1.f, 2.f) : iotaTensor(c.x, dt);
      const std::string what = shapeToString(c.x) + " kernel " + std::to_string(c.kernel.size()) + "-D " +
                               dataTypeName(dt);
      OpRun r = runOp("MaxUnpool", {x, indices}, attrsOf(c), 1, BackendType::kCPU, {}, 11);
      ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
      ASSERT_EQ(r.report.nodes.size(), 1u);
      EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
      expectSameBytes(r.outputs[0], unpoolReference(x, idx, c.unpooled, c.unpooled), what);
      for (const Shape& outShape : {c.unpooled, bigger}) {
        const Tensor shapeInput = tensorFromInts({static_cast<int64_t>(outShape.size())}, outShape);
        for (bool constant : {true, false}) {
          r = runOp("MaxUnpool", {x, indices, shapeInput}, attrsOf(c), 1, BackendType::kCPU, {false, false, constant},
                    11);
          const std::string w = what + " output_shape " + shapeToString(outShape) + (constant ? " constant" : " fed");
          ASSERT_TRUE(r.status.isOk()) << w << ": " << r.status.message();
          expectSameBytes(r.outputs[0], unpoolReference(x, idx, c.unpooled, outShape), w);
        }
      }
    }
  }
}

TEST(MaxUnpoolOp, BadInputsFailNamingTheNode) {
  Attributes a;
  a.setInts("kernel_shape", {2, 2});
  a.setInts("strides", {2, 2});
  const Tensor x = randomTensor({1, 1, 2, 2}, 1);
  OpRun r = runOp("MaxUnpool", {x, tensorFromInts({1, 1, 2, 2}, {0, 5, 16, 3})}, a, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("MaxUnpool"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("'I' holds 16"), std::string::npos) << r.status.message();
  EXPECT_FALSE(runOp("MaxUnpool", {x, tensorFromInts({1, 1, 2, 2}, {0, -1, 2, 3})}, a, 1, BackendType::kCPU)
                   .status.isOk());
  // output_shape smaller than the unpooled shape, or of another rank; I of another shape;
  // no kernel_shape.
  const Tensor idx = tensorFromInts({1, 1, 2, 2}, {0, 1, 2, 3});
  r = runOp("MaxUnpool", {x, idx, tensorFromInts({4}, {1, 1, 3, 4})}, a, 1, BackendType::kCPU, {false, false, true});
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("output_shape"), std::string::npos) << r.status.message();
  EXPECT_FALSE(runOp("MaxUnpool", {x, idx, tensorFromInts({2}, {4, 4})}, a, 1, BackendType::kCPU, {false, false, true})
                   .status.isOk());
  EXPECT_FALSE(runOp("MaxUnpool", {x, tensorFromInts({4}, {0, 1, 2, 3})}, a, 1, BackendType::kCPU).status.isOk());
  EXPECT_FALSE(runOp("MaxUnpool", {x, idx}, {}, 1, BackendType::kCPU).status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
