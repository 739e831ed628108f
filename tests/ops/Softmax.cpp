// Softmax and LogSoftmax, both opset conventions (coerce-to-2D before 13, one axis from
// 13), against a naive double-precision reference.
#include <gtest/gtest.h>

#include <cmath>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

// Softmax of x viewed as [outer, n, inner] over n.
Tensor softmaxReference(const Tensor& x, int64_t outer, int64_t n, int64_t inner, bool log) {
  Tensor y = Tensor::hostAllocate(x.shape(), DataType::kF32);
  const float* in = x.data<float>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double m = -INFINITY, sum = 0;
      for (int64_t j = 0; j < n; ++j) m = std::max(m, double(in[(o * n + j) * inner + i]));
      for (int64_t j = 0; j < n; ++j) sum += std::exp(double(in[(o * n + j) * inner + i]) - m);
      for (int64_t j = 0; j < n; ++j) {
        const double v = double(in[(o * n + j) * inner + i]) - m;
        y.data<float>()[(o * n + j) * inner + i] =
            static_cast<float>(log ? v - std::log(sum) : std::exp(v) / sum);
      }
    }
  }
  return y;
}

TEST(SoftmaxOp, OneAxisFromOpset13) {
  const Shape s = {3, 5, 1, 13};
  const Tensor x = randomTensor(s, 7, -4.f, 4.f);
  for (BackendType b : availableBackends()) {
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      for (int64_t axis = -4; axis < 4; ++axis) {
        const int64_t a = axis < 0 ? axis + 4 : axis;
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < a; ++d) outer *= s[d];
        for (int64_t d = a + 1; d < 4; ++d) inner *= s[d];
        Attributes attrs;
        attrs.setInt("axis", axis);
        OpRun r = runOp(op, {x}, attrs, 1, b, {}, 13);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectClose(r.outputs[0], softmaxReference(x, outer, s[a], inner, op[0] == 'L'), 1e-4, 1e-6,
                    std::string(backendTypeName(b)) + " " + op + " axis " + std::to_string(axis));
      }
      // Default axis is the last one.
      OpRun r = runOp(op, {x}, {}, 1, b, {}, 13);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], softmaxReference(x, 15, 13, 1, op[0] == 'L'), 1e-4, 1e-6, "default");
    }
  }
}

TEST(SoftmaxOp, CoercedTo2DBeforeOpset13) {
  const Shape s = {3, 5, 7};
  const Tensor x = randomTensor(s, 9, -3.f, 3.f);
  for (BackendType b : availableBackends()) {
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      for (int64_t axis : {0, 1, 2, -1}) {
        const int64_t a = axis < 0 ? axis + 3 : axis;
        int64_t outer = 1, n = 1;
        for (int64_t d = 0; d < 3; ++d) (d < a ? outer : n) *= s[d];
        Attributes attrs;
        attrs.setInt("axis", axis);
        OpRun r = runOp(op, {x}, attrs, 1, b, {}, 11);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectClose(r.outputs[0], softmaxReference(x, outer, n, 1, op[0] == 'L'), 1e-4, 1e-6,
                    std::string(op) + " opset 11 axis " + std::to_string(axis));
      }
      OpRun r = runOp(op, {x}, {}, 1, b, {}, 11);  // default axis 1
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], softmaxReference(x, 3, 35, 1, op[0] == 'L'), 1e-4, 1e-6, "default");
    }
  }
}

TEST(SoftmaxOp, LargeNumbersStayFinite) {
  const Tensor x = tensorFrom({2, 4}, {0, 1, 2, 3, 10000, 10001, 10002, 10003});
  OpRun r = runOp("Softmax", {x}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  const std::vector<float> row = {0.0320586f, 0.08714432f, 0.23688284f, 0.6439143f};
  expectClose(r.outputs[0], tensorFrom({2, 4}, {row[0], row[1], row[2], row[3], row[0], row[1],
                                                row[2], row[3]}));
  r = runOp("LogSoftmax", {x}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  const std::vector<float> lrow = {-3.4401896f, -2.4401896f, -1.4401897f, -0.44018966f};
  expectClose(r.outputs[0], tensorFrom({2, 4}, {lrow[0], lrow[1], lrow[2], lrow[3], lrow[0],
                                                lrow[1], lrow[2], lrow[3]}));
}

TEST(SoftmaxOp, WideInnerUsesLanes) {
  // inner = 150 > 64 lanes: exercises partial lane blocks.
  const Tensor x = randomTensor({2, 9, 150}, 11, -5.f, 5.f);
  Attributes attrs;
  attrs.setInt("axis", 1);
  OpRun r = runOp("Softmax", {x}, attrs, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectClose(r.outputs[0], softmaxReference(x, 2, 9, 150, false), 1e-4, 1e-6);
}

TEST(SoftmaxOp, ManyShortRows) {
  // The CPU takes rows shorter than 64 values in chunks of 512 floats (one exp call a chunk)
  // over threads: a detector's two-class scores, one value a row, a chunk's rows not dividing
  // the tensor's, 63 values (8 rows a chunk, many tasks).
  for (const Shape& s : {Shape{1, 4420, 2}, Shape{5, 1}, Shape{700, 3}, Shape{2, 1500, 63}, Shape{3, 170, 17}}) {
    const Tensor x = randomTensor(s, 15, -30.f, 30.f);
    const int64_t n = s.back(), outer = elementCount(s) / n;
    for (BackendType b : availableBackends()) {
      if (b != BackendType::kCPU && elementCount(s) > 10000) continue;  // the CPU's chunking is what this tests
      for (const char* op : {"Softmax", "LogSoftmax"}) {
        OpRun r = runOp(op, {x}, {}, 1, b, {}, 13);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectClose(r.outputs[0], softmaxReference(x, outer, n, 1, op[0] == 'L'), 1e-4, 1e-6,
                    std::string(backendTypeName(b)) + " " + op + " " + shapeToString(s));
      }
    }
  }
}

TEST(SoftmaxOp, LongRows) {
  // A recogniser head's 6625 classes: rows longer than the CPU's 256-value exp chunks.
  const Tensor x = randomTensor({3, 6625}, 12, -20.f, 20.f);
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    OpRun r = runOp(op, {x}, {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], softmaxReference(x, 3, 6625, 1, std::string(op) == "LogSoftmax"), 1e-4, 1e-6, op);
  }
  // The CPU reduces a row in 16 partials plus a tail: the maximum in the tail (row 0), in
  // the last whole group (row 1), first (row 2); a row shorter than one group (x2).
  Tensor y = randomTensor({3, 35}, 13, -20.f, 20.f);
  y.data<float>()[34] = 30.f;
  y.data<float>()[35 + 31] = 30.f;
  y.data<float>()[70] = 30.f;
  const Tensor x2 = randomTensor({2, 7}, 14, -20.f, 20.f);
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    const bool log = std::string(op) == "LogSoftmax";
    OpRun r = runOp(op, {y}, {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], softmaxReference(y, 3, 35, 1, log), 1e-4, 1e-6, std::string(op) + " 35");
    r = runOp(op, {x2}, {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], softmaxReference(x2, 2, 7, 1, log), 1e-4, 1e-6, std::string(op) + " 7");
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
