// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear against naive references:
// ties to even (positive and negative, even and odd), saturation at both ends of int8 and
// uint8, per-tensor and per-axis scales on every axis (negative too), zero points omitted,
// scalar and per axis, f32, f16 and int32 data, opset 10's scalar-only rule; bad inputs fail
// naming the node and the cause.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "QuantNaive.hpp"

namespace tessera {
namespace test {
namespace {

const Shape kShape = {3, 5, 2, 7};

// Channel of flat element i for a per-axis parameter on `axis` of `shape` (0 per tensor).
int64_t channelOf(int64_t i, const Shape& shape, int64_t axis, bool perAxis) {
  if (!perAxis) return 0;
  return unravelIndex(i, shape)[axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis];
}

// Scales: powers of two (exact ties) and two awkward values.
Tensor scales(int64_t count) {
  const float pool[] = {0.5f, 2.f, 0.37f, 0.25f, 1.f, 3.3f, 4.f};
  Tensor t = Tensor::hostAllocate(count == 1 ? Shape{} : Shape{count}, DataType::kF32);
  for (int64_t i = 0; i < count; ++i) t.data<float>()[i] = pool[i % 7];
  return t;
}

// x / scale lands on halves (ties) and on values past the 8-bit ranges.
Tensor someX(const Shape& shape, const Tensor& scale, int64_t axis, bool perAxis) {
  Tensor t = Tensor::hostAllocate(shape, DataType::kF32);
  for (int64_t i = 0; i < t.elementCount(); ++i) {
    const float s = scale.data<float>()[channelOf(i, shape, axis, perAxis)];
    const float k = static_cast<float>((i * 13) % 97 - 48) * (i % 5 == 0 ? 6.f : 1.f);
    t.data<float>()[i] = s * (k + (i % 2 ? 0.5f : 0.3f * static_cast<float>(i % 3)));
  }
  return t;
}

TEST(QuantizeLinearOp, TiesRoundToEven) {
  // x / scale = k + 0.5 for even and odd k, negative too, and just off a tie; zero point 10
  // keeps int8 and uint8 in range. Scale 1 and 0.25 (exact quotients).
  const std::vector<float> q = {0.5f, 1.5f, 2.5f, 3.5f, -0.5f, -1.5f, -2.5f, -3.5f, 2.4999998f, 2.5000002f};
  const std::vector<int64_t> rounded = {0, 2, 2, 4, 0, -2, -2, -4, 2, 3};
  for (DataType dt : {DataType::kI8, DataType::kU8}) {
    for (float scale : {1.f, 0.25f}) {
      std::vector<float> x;
      for (float v : q) x.push_back(v * scale);
      OpRun r = runOp("QuantizeLinear",
                      {tensorFrom({10}, x), tensorFrom({}, {scale}), intTensor({}, dt, [](int64_t) { return 10; })}, {},
                      1, BackendType::kCPU);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
      for (size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(intAt(r.outputs[0], i), rounded[i] + 10) << "x / scale " << q[i];
        EXPECT_EQ(naiveRoundHalfEven(q[i]), rounded[i]) << "the naive reference itself";
      }
    }
  }
}

TEST(QuantizeLinearOp, SaturatesAtBothEnds) {
  const std::vector<float> x = {-1e30f, -1000.f, -129.f, -128.5f, -127.5f, 126.5f, 127.5f, 128.f, 255.5f, 256.f, 1e30f};
  for (DataType dt : {DataType::kI8, DataType::kU8}) {
    for (int64_t zp : {int64_t(0), dt == DataType::kI8 ? int64_t(-100) : int64_t(200)}) {
      OpRun r = runOp("QuantizeLinear", {tensorFrom({11}, x), tensorFrom({}, {1.f}), intTensor({}, dt, [&](int64_t) { return zp; })},
                      {}, 1, BackendType::kCPU);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      for (size_t i = 0; i < x.size(); ++i)
        EXPECT_EQ(intAt(r.outputs[0], i), naiveSaturate(naiveRoundHalfEven(x[i]) + zp, dt))
            << dataTypeName(dt) << " zp " << zp << " x " << x[i];
    }
  }
}

TEST(QuantizeLinearOp, EveryAxisAndZeroPointForm) {
  const int64_t rank = static_cast<int64_t>(kShape.size());
  for (DataType dt : {DataType::kU8, DataType::kI8}) {
    for (int64_t axis = -rank; axis <= rank; ++axis) {  // axis == rank: per tensor (no axis)
      const bool perAxis = axis < rank;
      const int64_t channels = perAxis ? kShape[axis < 0 ? axis + rank : axis] : 1;
      const Tensor scale = scales(channels);
      const Tensor x = someX(kShape, scale, axis, perAxis);
      for (int zpForm = 0; zpForm < 2; ++zpForm) {  // omitted, same shape as the scale
        if (zpForm == 0 && dt == DataType::kI8) continue;  // no zero point: uint8
        Tensor zp = zpForm ? intTensor(scale.shape(), dt, [&](int64_t c) { return spread8(c, dt, 3) / 2; }) : omittedInput();
        Attributes attrs;
        if (perAxis) attrs.setInt("axis", axis);
        for (bool constant : {false, true}) {
          OpRun r = runOp("QuantizeLinear", {x, scale, zp}, attrs, 1, BackendType::kCPU, {false, constant, constant});
          const std::string what = std::string(dataTypeName(dt)) + " axis " + std::to_string(axis) + " zp form " +
                                   std::to_string(zpForm);
          ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
          EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
          const Tensor expected = intTensor(kShape, dt, [&](int64_t i) {
            const int64_t c = channelOf(i, kShape, axis, perAxis);
            const float q = x.data<float>()[i] / scale.data<float>()[c];  // the division is f32
            return naiveSaturate(naiveRoundHalfEven(q) + (zpForm ? intAt(zp, c) : 0), dt);
          });
          expectSameInts(r.outputs[0], expected, what);
        }
      }
    }
  }
}

TEST(QuantizeLinearOp, Int32InputAndOpset10) {
  const Tensor x = intTensor({4, 9}, DataType::kI32, [](int64_t i) { return (i * 7919) % 2001 - 1000; });
  const Tensor zp = intTensor({}, DataType::kI8, [](int64_t) { return -3; });
  for (int opset : {10, 13}) {
    OpRun r = runOp("QuantizeLinear", {x, tensorFrom({}, {8.f}), zp}, {}, 1, BackendType::kCPU, {}, opset);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    const Tensor expected = intTensor({4, 9}, DataType::kI8, [&](int64_t i) {
      return naiveSaturate(naiveRoundHalfEven(intAt(x, i) / 8.0) - 3, DataType::kI8);
    });
    expectSameInts(r.outputs[0], expected, "int32 x, opset " + std::to_string(opset));
  }
  // Opset 10 has no per-axis scales.
  OpRun r = runOp("QuantizeLinear", {randomTensor({2, 3}, 1), scales(3), omittedInput()}, {}, 1, BackendType::kCPU,
                  {}, 10);
  expectFailsNaming(r, "QuantizeLinear", "opset 13");
}

TEST(DequantizeLinearOp, EveryAxisDtypeAndZeroPointForm) {
  const int64_t rank = static_cast<int64_t>(kShape.size());
  for (DataType dt : {DataType::kU8, DataType::kI8, DataType::kI32}) {
    const Tensor x = intTensor(kShape, dt, [&](int64_t i) {
      return dt == DataType::kI32 ? (i * 104729) % 200001 - 100000 : spread8(i, dt);
    });
    for (int64_t axis = -rank; axis <= rank; ++axis) {
      const bool perAxis = axis < rank;
      const Tensor scale = scales(perAxis ? kShape[axis < 0 ? axis + rank : axis] : 1);
      for (int zpForm = 0; zpForm < 2; ++zpForm) {
        Tensor zp = zpForm ? intTensor(scale.shape(), dt, [&](int64_t c) { return dt == DataType::kI32 ? 0 : spread8(c, dt, 7); })
                           : omittedInput();
        Attributes attrs;
        if (perAxis) attrs.setInt("axis", axis);
        OpRun r = runOp("DequantizeLinear", {x, scale, zp}, attrs, 1, BackendType::kCPU);
        const std::string what = std::string(dataTypeName(dt)) + " axis " + std::to_string(axis) + " zp form " +
                                 std::to_string(zpForm);
        ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
        EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
        Tensor expected = Tensor::hostAllocate(kShape, DataType::kF32);
        for (int64_t i = 0; i < expected.elementCount(); ++i) {
          const int64_t c = channelOf(i, kShape, axis, perAxis);
          expected.data<float>()[i] = static_cast<float>(intAt(x, i) - (zpForm ? intAt(zp, c) : 0)) * scale.data<float>()[c];
        }
        expectClose(r.outputs[0], expected, 0, 0, what);
      }
    }
  }
}

// The ONNX definition in f32, step by step.
void expectDynamicQuantize(const Tensor& x, const std::string& what) {
  OpRun r = runOp("DynamicQuantizeLinear", {x}, {}, 3, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
  EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
  float lo = 0.f, hi = 0.f;
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    lo = std::min(lo, x.data<float>()[i]);
    hi = std::max(hi, x.data<float>()[i]);
  }
  const float scale = (hi - lo) / 255.f;
  const int64_t zp = naiveSaturate(naiveRoundHalfEven((0.f - lo) / scale), DataType::kU8);
  ASSERT_EQ(r.outputs[1].elementCount(), 1);
  EXPECT_EQ(r.outputs[1].data<float>()[0], scale) << what;
  EXPECT_EQ(intAt(r.outputs[2], 0), zp) << what;
  const Tensor expected = intTensor(x.shape(), DataType::kU8, [&](int64_t i) {
    return naiveSaturate(naiveRoundHalfEven(x.data<float>()[i] / scale) + zp, DataType::kU8);
  });
  expectSameInts(r.outputs[0], expected, what);
}

TEST(DynamicQuantizeLinearOp, MixedNegativeAndPositiveRanges) {
  expectDynamicQuantize(randomTensor({3, 5, 7}, 11, -2.f, 3.f), "mixed");
  expectDynamicQuantize(randomTensor({33}, 12, -4.f, -1.f), "all negative");
  expectDynamicQuantize(randomTensor({2, 17}, 13, 0.5f, 6.f), "all positive");
  expectDynamicQuantize(randomTensor({5, 4001}, 14, -1.f, 1.f), "large (split over threads)");
  // All zeros: the range is empty, scale 1 and zero point 0 (as ONNX Runtime).
  OpRun r = runOp("DynamicQuantizeLinear", {tensorFrom({5}, {0, 0, 0, 0, 0})}, {}, 3, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_EQ(r.outputs[1].data<float>()[0], 1.f);
  EXPECT_EQ(intAt(r.outputs[2], 0), 0);
  for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(intAt(r.outputs[0], i), 0);
}

TEST(QuantizeLinearOp, BadInputsFailNamingTheNode) {
  const Tensor x = randomTensor({2, 3, 4}, 2);
  Attributes axis1;
  axis1.setInt("axis", 1);
  // Scale length does not match the axis.
  expectFailsNaming(runOp("QuantizeLinear", {x, scales(4), omittedInput()}, axis1, 1, BackendType::kCPU),
                    "QuantizeLinear", "along axis 1");
  Attributes axis5;
  axis5.setInt("axis", -4);
  expectFailsNaming(runOp("QuantizeLinear", {x, scales(3), omittedInput()}, axis5, 1, BackendType::kCPU),
                    "QuantizeLinear", "out of range");
  // Zero point shape differs from the scale's.
  expectFailsNaming(runOp("QuantizeLinear", {x, scales(3), intTensor({}, DataType::kU8, [](int64_t) { return 1; })},
                          axis1, 1, BackendType::kCPU),
                    "QuantizeLinear", "shape of scale");
  // Zero point of an unsupported dtype, and output_dtype disagreeing with it.
  expectFailsNaming(runOp("QuantizeLinear", {x, scales(1), intTensor({}, DataType::kI32, [](int64_t) { return 1; })},
                          {}, 1, BackendType::kCPU),
                    "QuantizeLinear", "int8 or uint8");
  Attributes int8Out;
  int8Out.setInt("output_dtype", 3);
  expectFailsNaming(runOp("QuantizeLinear", {x, scales(1), intTensor({}, DataType::kU8, [](int64_t) { return 1; })},
                          int8Out, 1, BackendType::kCPU, {}, 21),
                    "QuantizeLinear", "output_dtype");
  // Integer data other than int32, and a scale that is not float.
  expectFailsNaming(runOp("QuantizeLinear", {intTensor({3}, DataType::kU8, [](int64_t i) { return i; }), scales(1)}, {}, 1,
                          BackendType::kCPU),
                    "QuantizeLinear", "float or int32");
  expectFailsNaming(runOp("QuantizeLinear", {x, intTensor({}, DataType::kI32, [](int64_t) { return 1; })}, {}, 1,
                          BackendType::kCPU),
                    "QuantizeLinear", "float tensor");
  Attributes blocked;
  blocked.setInt("block_size", 2);
  expectFailsNaming(runOp("QuantizeLinear", {x, scales(1)}, blocked, 1, BackendType::kCPU, {}, 21), "QuantizeLinear",
                    "block_size");
}

TEST(DequantizeLinearOp, BadInputsFailNamingTheNode) {
  const Tensor x = intTensor({2, 3, 4}, DataType::kU8, [](int64_t i) { return i; });
  // int8 zero point for uint8 data: the spec makes them one type.
  expectFailsNaming(runOp("DequantizeLinear", {x, scales(1), intTensor({}, DataType::kI8, [](int64_t) { return 1; })}, {}, 1,
                          BackendType::kCPU),
                    "DequantizeLinear", "dtype of 'x'");
  Attributes axis2;
  axis2.setInt("axis", -1);
  expectFailsNaming(runOp("DequantizeLinear", {x, scales(3), omittedInput()}, axis2, 1, BackendType::kCPU),
                    "DequantizeLinear", "along axis -1");
  expectFailsNaming(runOp("DequantizeLinear", {randomTensor({3}, 1), scales(1)}, {}, 1, BackendType::kCPU),
                    "DequantizeLinear", "int8, uint8 or int32");
  expectFailsNaming(runOp("DequantizeLinear", {x}, {}, 1, BackendType::kCPU), "DequantizeLinear", "scale");
  expectFailsNaming(runOp("DynamicQuantizeLinear", {x}, {}, 3, BackendType::kCPU), "DynamicQuantizeLinear", "f32");
}

// Opset 19 allows f16 data and scales: computed in f32 around the step.
TEST(QuantizeLinearOp, HalfPrecisionDataAndScales) {
  Tensor x = Tensor::hostAllocate({2, 5}, DataType::kF16);
  const std::vector<float> v = {0.5f, 1.5f, 2.5f, -2.5f, 100.f, -300.f, 3.25f, 0.f, 7.f, -7.5f};
  for (int i = 0; i < 10; ++i) x.data<uint16_t>()[i] = floatToHalf(v[i]);
  Tensor scale = Tensor::hostAllocate({}, DataType::kF16);
  scale.data<uint16_t>()[0] = floatToHalf(0.5f);
  const Tensor zp = intTensor({}, DataType::kI8, [](int64_t) { return 1; });
  OpRun q = runOp("QuantizeLinear", {x, scale, zp}, {}, 1, BackendType::kCPU, {}, 19);
  ASSERT_TRUE(q.status.isOk()) << q.status.message();
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(intAt(q.outputs[0], i), naiveSaturate(naiveRoundHalfEven(v[i] / 0.5) + 1, DataType::kI8)) << v[i];
  OpRun d = runOp("DequantizeLinear", {q.outputs[0], scale, zp}, {}, 1, BackendType::kCPU, {}, 19);
  ASSERT_TRUE(d.status.isOk()) << d.status.message();
  ASSERT_EQ(d.outputs[0].dtype(), DataType::kF16);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(halfToFloat(d.outputs[0].data<uint16_t>()[i]), static_cast<float>(intAt(q.outputs[0], i) - 1) * 0.5f);
}

}  // namespace
}  // namespace test
}  // namespace tessera
