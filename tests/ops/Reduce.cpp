// The Reduce* family against a naive double-precision reference, over every subset of
// axes of a rank-4 tensor, with and without keepdims; axes as input (opset 13/18),
// noop_with_empty_axes, f64 and int64 inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

const char* const kOps[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                            "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare",
                            "ReduceLogSumExp", "ReduceLogSum"};

// Reduces `values` (one per input element) per output element, then finishes.
Tensor reduceReference(const std::string& op, const Shape& in, const std::vector<double>& values,
                       const std::vector<bool>& reduced, bool keepDims, DataType dtype) {
  Shape kept, out;
  for (size_t d = 0; d < in.size(); ++d) {
    kept.push_back(reduced[d] ? 1 : in[d]);
    if (!reduced[d] || keepDims) out.push_back(kept.back());
  }
  const int64_t outCount = elementCount(kept);
  std::vector<std::vector<double>> groups(outCount);
  for (int64_t i = 0; i < elementCount(in); ++i) {
    std::vector<int64_t> idx = unravelIndex(i, in);
    for (size_t d = 0; d < in.size(); ++d)
      if (reduced[d]) idx[d] = 0;
    groups[ravelIndex(idx, kept)].push_back(values[i]);
  }
  Tensor r = Tensor::hostAllocate(out, DataType::kF64);
  for (int64_t o = 0; o < outCount; ++o) {
    const std::vector<double>& g = groups[o];
    double v = 0;
    if (op == "ReduceProd") v = 1;
    if (op == "ReduceMax") v = -INFINITY;
    if (op == "ReduceMin") v = INFINITY;
    double m = -INFINITY;
    for (double x : g) m = std::max(m, x);
    for (double x : g) {
      if (op == "ReduceSum" || op == "ReduceMean" || op == "ReduceLogSum") v += x;
      else if (op == "ReduceMax") v = std::max(v, x);
      else if (op == "ReduceMin") v = std::min(v, x);
      else if (op == "ReduceProd") v *= x;
      else if (op == "ReduceL1") v += std::fabs(x);
      else if (op == "ReduceL2" || op == "ReduceSumSquare") v += x * x;
      else if (op == "ReduceLogSumExp") v += std::exp(x - m);
    }
    if (op == "ReduceMean") v /= static_cast<double>(g.size());
    if (op == "ReduceL2") v = std::sqrt(v);
    if (op == "ReduceLogSum") v = std::log(v);
    if (op == "ReduceLogSumExp") v = m + std::log(v);
    r.data<double>()[o] = v;
  }
  Tensor typed = Tensor::hostAllocate(out, dtype);
  EXPECT_TRUE(convertDataType(r, typed));
  return typed;
}

std::vector<double> valuesOf(const Tensor& t) {
  Tensor d = Tensor::hostAllocate(t.shape(), DataType::kF64);
  EXPECT_TRUE(convertDataType(t, d));
  return std::vector<double>(d.data<double>(), d.data<double>() + d.elementCount());
}

TEST(ReduceOp, EverySubsetOfAxes) {
  const Shape s = {3, 5, 1, 7};
  // Positive and near 1: fine for LogSum and for products of up to 105 values.
  const Tensor x = randomTensor(s, 21, 0.8f, 1.25f);
  const std::vector<double> values = valuesOf(x);
  for (BackendType b : availableBackends()) {
    for (const char* op : kOps) {
      for (int mask = 0; mask < 16; ++mask) {
        for (bool keep : {true, false}) {
          std::vector<int64_t> axes;
          std::vector<bool> reduced(4, mask == 0);  // no axes: all of them
          for (int d = 0; d < 4; ++d)
            if (mask & (1 << d)) {
              axes.push_back(d % 2 ? d : d - 4);  // mix negative and positive axes
              reduced[d] = true;
            }
          Attributes attrs;
          attrs.setInt("keepdims", keep ? 1 : 0);
          if (!axes.empty()) attrs.setInts("axes", axes);
          OpRun r = runOp(op, {x}, attrs, 1, b, {}, 11);
          ASSERT_TRUE(r.status.isOk()) << op << ": " << r.status.message();
          expectClose(r.outputs[0], reduceReference(op, s, values, reduced, keep, DataType::kF32),
                      1e-4, 1e-5,
                      std::string(backendTypeName(b)) + " " + op + " mask " +
                          std::to_string(mask) + (keep ? " keepdims" : ""));
        }
      }
    }
  }
}

TEST(ReduceOp, AxesAsInput) {
  const Shape s = {3, 5, 13};
  const Tensor x = randomTensor(s, 5, -2.f, 2.f);
  const std::vector<double> values = valuesOf(x);
  for (BackendType b : availableBackends()) {
    OpRun r = runOp("ReduceSum", {x, tensorFromInts({2}, {0, -1})}, {}, 1, b, {false, true}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], reduceReference("ReduceSum", s, values, {true, false, true}, true,
                                              DataType::kF32), 1e-4, 1e-5, "opset 13 axes input");
    r = runOp("ReduceMean", {x, tensorFromInts({1}, {1})}, {}, 1, b, {false, true}, 18);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], reduceReference("ReduceMean", s, values, {false, true, false}, true,
                                              DataType::kF32), 1e-4, 1e-5, "opset 18 axes input");
    // Omitted axes: all; empty axes with noop_with_empty_axes: identity.
    r = runOp("ReduceSum", {x}, {}, 1, b, {}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], reduceReference("ReduceSum", s, values, {true, true, true}, true,
                                              DataType::kF32), 1e-4, 1e-4, "omitted axes");
    Attributes noop;
    noop.setInt("noop_with_empty_axes", 1);
    r = runOp("ReduceSum", {x, tensorFromInts({0}, {})}, noop, 1, b, {false, true}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], x, 0, 0, "noop");
  }
}

TEST(ReduceOp, WideColumnsDoubleAndInt64) {
  for (BackendType b : availableBackends()) {
    // 150 kept inner outputs: several lane blocks, the last one partial.
    const Shape s = {4, 9, 150};
    const Tensor x = randomTensor(s, 8, -3.f, 3.f);
    Attributes attrs;
    attrs.setInts("axes", {1});
    for (const char* op : {"ReduceLogSumExp", "ReduceMax", "ReduceL2"}) {
      OpRun r = runOp(op, {x}, attrs, 1, b, {}, 13);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], reduceReference(op, s, valuesOf(x), {false, true, false}, true,
                                                DataType::kF32), 1e-4, 1e-5, op);
    }
    Tensor xd = Tensor::hostAllocate(s, DataType::kF64);
    ASSERT_TRUE(convertDataType(x, xd));
    OpRun r = runOp("ReduceLogSumExp", {xd}, attrs, 1, b, {}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], reduceReference("ReduceLogSumExp", s, valuesOf(xd),
                                              {false, true, false}, true, DataType::kF64),
                1e-9, 1e-12, "f64");
    const Tensor xi = iotaTensor({3, 5, 7}, DataType::kI64);
    attrs.setInts("axes", {0, 2});
    for (const char* op : {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceSumSquare"}) {
      r = runOp(op, {xi}, attrs, 1, b, {}, 11);  // opset 11: ReduceSum's axes is an attribute
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], reduceReference(op, {3, 5, 7}, valuesOf(xi), {true, false, true},
                                                true, DataType::kI64), 0, 0,
                  std::string(op) + " i64");
    }
  }
}

TEST(ReduceOp, LargeEnoughToSplitAcrossThreads) {
  const Shape s = {16, 200, 40};
  const Tensor x = randomTensor(s, 12, -1.f, 1.f);
  const std::vector<double> values = valuesOf(x);
  for (BackendType b : availableBackends()) {
    for (int64_t axis : {0, 1, 2}) {
      Attributes attrs;
      attrs.setInts("axes", {axis});
      std::vector<bool> reduced(3, false);
      reduced[axis] = true;
      for (const char* op : {"ReduceMean", "ReduceLogSumExp"}) {
        OpRun r = runOp(op, {x}, attrs, 1, b, {}, 13);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectClose(r.outputs[0], reduceReference(op, s, values, reduced, true, DataType::kF32),
                    1e-4, 1e-5, std::string(op) + " axis " + std::to_string(axis));
      }
    }
  }
}

TEST(ReduceOp, RejectsBadAxis) {
  Attributes attrs;
  attrs.setInts("axes", {3});
  EXPECT_FALSE(runOp("ReduceMean", {randomTensor({2, 3, 4}, 1)}, attrs, 1, BackendType::kCPU, {}, 13)
                   .status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
