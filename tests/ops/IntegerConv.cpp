// ConvInteger and QLinearConv against a naive N-D convolution: int8/uint8 data and weights
// in every combination; groups (depthwise too), explicit pads, stride 2, dilation,
// non-square kernels, every auto_pad, 1-D/2-D/3-D, channels not multiples of 4, batch > 1;
// zero points omitted, per tensor and per output channel; constant and run-time weights;
// QLinearConv with bias and per-channel scales; bad inputs fail naming the node.
#include <gtest/gtest.h>

#include "QuantNaive.hpp"

namespace tessera {
namespace test {
namespace {

struct ConvCase {
  Shape x, w;
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads;  // empty: ONNX defaults
  std::string autoPad;                            // empty: NOTSET
};

const std::vector<ConvCase> kCases = {
    {{2, 5, 7, 6}, {3, 5, 3, 2}, 1, {2, 1}, {1, 2}, {1, 0, 2, 1}, ""},
    {{1, 6, 9, 8}, {9, 2, 3, 3}, 3, {2, 2}, {}, {1, 1, 1, 1}, ""},
    {{3, 5, 6, 7}, {5, 1, 2, 3}, 5, {2, 2}, {}, {}, "SAME_UPPER"},
    {{1, 3, 5, 5}, {13, 3, 4, 4}, 1, {}, {1, 1}, {}, "SAME_LOWER"},
    {{2, 3, 8, 9}, {4, 3, 3, 1}, 1, {2, 3}, {}, {}, "VALID"},
    {{2, 3, 11}, {5, 3, 3}, 1, {2}, {}, {2, 1}, ""},
    {{1, 2, 4, 5, 3}, {3, 2, 2, 3, 2}, 1, {}, {}, {1, 1, 1, 0, 1, 1}, ""},
    {{1, 1, 7, 7}, {1, 1, 1, 1}, 1, {}, {}, {}, ""},
    {{2, 3, 23, 29}, {2, 3, 3, 3}, 1, {}, {}, {0, 1, 0, 1}, ""},  // several tiles of output positions
};

Attributes attrsOf(const ConvCase& c) {
  Attributes a;
  if (c.group != 1) a.setInt("group", c.group);
  if (!c.strides.empty()) a.setInts("strides", c.strides);
  if (!c.dilations.empty()) a.setInts("dilations", c.dilations);
  if (!c.pads.empty()) a.setInts("pads", c.pads);
  if (!c.autoPad.empty()) a.setString("auto_pad", c.autoPad);
  return a;
}

// Output geometry, worked out here from the ONNX rules.
struct NaiveGeometry {
  std::vector<int64_t> in, kernel, out, stride, dilation, padBegin;
};

NaiveGeometry geometryOf(const ConvCase& c) {
  NaiveGeometry g;
  const size_t r = c.x.size() - 2;
  for (size_t i = 0; i < r; ++i) {
    const int64_t in = c.x[i + 2], k = c.w[i + 2];
    const int64_t s = c.strides.empty() ? 1 : c.strides[i], d = c.dilations.empty() ? 1 : c.dilations[i];
    const int64_t span = (k - 1) * d + 1;
    int64_t pb = c.pads.empty() ? 0 : c.pads[i], pe = c.pads.empty() ? 0 : c.pads[i + r];
    if (c.autoPad == "VALID") pb = pe = 0;
    if (c.autoPad == "SAME_UPPER" || c.autoPad == "SAME_LOWER") {
      const int64_t out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + span - in);
      pb = c.autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    }
    g.in.push_back(in);
    g.kernel.push_back(k);
    g.stride.push_back(s);
    g.dilation.push_back(d);
    g.padBegin.push_back(pb);
    g.out.push_back((in + pb + pe - span) / s + 1);
  }
  return g;
}

// The int32 sums y[n, m, out...] of (x - xZero) * (w - wZero[m]) over the window, padding 0.
std::vector<int64_t> naiveConvSums(const ConvCase& c, const Tensor& x, const Tensor& w, int64_t xZero,
                                   const Tensor* wZero, Shape* yShape) {
  const NaiveGeometry g = geometryOf(c);
  const int64_t N = c.x[0], C = c.x[1], M = c.w[0], cPerGroup = C / c.group, mPerGroup = M / c.group;
  const Shape outSpatial(g.out.begin(), g.out.end()), kernel(g.kernel.begin(), g.kernel.end());
  const Shape inSpatial(g.in.begin(), g.in.end());
  *yShape = {N, M};
  yShape->insert(yShape->end(), g.out.begin(), g.out.end());
  std::vector<int64_t> y;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      const int64_t wz = wZero ? intAt(*wZero, wZero->elementCount() > 1 ? m : 0) : 0;
      const int64_t g0 = m / mPerGroup * cPerGroup;
      for (int64_t o = 0; o < elementCount(outSpatial); ++o) {
        const std::vector<int64_t> op = unravelIndex(o, outSpatial);
        int64_t sum = 0;
        for (int64_t ci = 0; ci < cPerGroup; ++ci)
          for (int64_t t = 0; t < elementCount(kernel); ++t) {
            const std::vector<int64_t> kp = unravelIndex(t, kernel);
            std::vector<int64_t> ip(op.size());
            bool inside = true;
            for (size_t d = 0; d < op.size(); ++d) {
              ip[d] = op[d] * g.stride[d] - g.padBegin[d] + kp[d] * g.dilation[d];
              inside = inside && ip[d] >= 0 && ip[d] < g.in[d];
            }
            if (!inside) continue;
            const int64_t xv = intAt(x, (n * C + g0 + ci) * elementCount(inSpatial) + ravelIndex(ip, inSpatial));
            const int64_t wv = intAt(w, (m * cPerGroup + ci) * elementCount(kernel) + t);
            sum += (xv - xZero) * (wv - wz);
          }
        y.push_back(sum);
      }
    }
  return y;
}

TEST(ConvIntegerOp, GeometryDtypesAndZeroPoints) {
  const DataType types[] = {DataType::kU8, DataType::kI8};
  int index = 0;
  for (const ConvCase& c : kCases) {
    for (DataType xt : types)
      for (DataType wt : types)
        for (int wForm = 0; wForm < 3; ++wForm) {  // w_zero_point omitted, scalar, per output channel
          const Tensor x = intTensor(c.x, xt, [&](int64_t i) { return spread8(i, xt, 1); });
          const Tensor w = intTensor(c.w, wt, [&](int64_t i) { return spread8(i, wt, 2); });
          const bool xZeroGiven = (wForm + index) % 2 == 0;
          const Tensor xZero = intTensor({}, xt, [&](int64_t) { return xt == DataType::kU8 ? 131 : -5; });
          const Tensor wZero =
              intTensor(wForm == 2 ? Shape{c.w[0]} : Shape{}, wt, [&](int64_t i) { return spread8(i, wt, 7); });
          const bool constantW = (wForm + index) % 3 != 1;
          OpRun r = runOp("ConvInteger", {x, w, xZeroGiven ? xZero : omittedInput(), wForm ? wZero : omittedInput()},
                          attrsOf(c), 1, BackendType::kCPU, {false, constantW, false, constantW});
          const std::string what = "case " + std::to_string(index) + " " + dataTypeName(xt) + "/" + dataTypeName(wt) +
                                   " w zp form " + std::to_string(wForm);
          ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
          ASSERT_EQ(r.report.nodes.size(), 1u);
          EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
          Shape yShape;
          const std::vector<int64_t> sums =
              naiveConvSums(c, x, w, xZeroGiven ? intAt(xZero, 0) : 0, wForm ? &wZero : nullptr, &yShape);
          expectSameInts(r.outputs[0], intTensor(yShape, DataType::kI32, [&](int64_t i) { return sums[i]; }), what);
        }
    ++index;
  }
}

TEST(QLinearConvOp, RequantizesWithBiasAndPerChannelScales) {
  const DataType types[] = {DataType::kU8, DataType::kI8};
  int index = 0;
  for (const ConvCase& c : kCases) {
    const int64_t M = c.w[0];
    for (DataType xt : types)
      for (DataType wt : types)
        for (DataType yt : types)
          for (int form = 0; form < 2; ++form) {  // 0: per tensor, no bias; 1: per channel with bias
            const Tensor x = intTensor(c.x, xt, [&](int64_t i) { return spread8(i, xt, 3); });
            const Tensor w = intTensor(c.w, wt, [&](int64_t i) { return spread8(i, wt, 4); });
            const Tensor xZero = intTensor({}, xt, [&](int64_t) { return xt == DataType::kU8 ? 128 : 3; });
            const Tensor wZero =
                intTensor(form ? Shape{M} : Shape{1}, wt, [&](int64_t i) { return spread8(i, wt, 8) / 4; });
            Tensor wScale = Tensor::hostAllocate(form ? Shape{M} : Shape{1}, DataType::kF32);
            for (int64_t i = 0; i < wScale.elementCount(); ++i) wScale.data<float>()[i] = 0.0017f + 0.0009f * static_cast<float>(i % 4);
            const Tensor bias = intTensor({M}, DataType::kI32, [](int64_t i) { return (i * 7919) % 20001 - 10000; });
            const Tensor yZero = intTensor({}, yt, [&](int64_t) { return yt == DataType::kU8 ? 119 : -6; });
            const float xScale = 0.0093f, yScale = 0.0411f;
            OpRun r = runOp("QLinearConv",
                            {x, tensorFrom({}, {xScale}), xZero, w, wScale, wZero, tensorFrom({}, {yScale}), yZero,
                             form ? bias : omittedInput()},
                            attrsOf(c), 1, BackendType::kCPU, {false, false, false, true, true, true, false, false, true});
            const std::string what = "case " + std::to_string(index) + " " + dataTypeName(xt) + "/" + dataTypeName(wt) +
                                     " -> " + dataTypeName(yt) + " form " + std::to_string(form);
            ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
            EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
            Shape yShape;
            const std::vector<int64_t> sums = naiveConvSums(c, x, w, intAt(xZero, 0), &wZero, &yShape);
            const int64_t perChannel = elementCount(yShape) / (yShape[0] * yShape[1]);
            const Tensor expected = intTensor(yShape, yt, [&](int64_t i) {
              const int64_t m = i / perChannel % M;
              const float multiplier = xScale * wScale.data<float>()[form ? m : 0] / yScale;  // f32, as defined
              const int64_t acc = sums[i] + (form ? intAt(bias, m) : 0);
              return naiveSaturate(naiveRoundHalfEven(static_cast<float>(acc) * multiplier) + intAt(yZero, 0), yt);
            });
            expectSameInts(r.outputs[0], expected, what);
          }
    ++index;
  }
}

TEST(ConvIntegerOp, BadInputsFailNamingTheNode) {
  const Tensor x = intTensor({1, 4, 5, 5}, DataType::kU8, [](int64_t i) { return i; });
  const Tensor w = intTensor({6, 4, 3, 3}, DataType::kI8, [](int64_t i) { return i % 7; });
  const Tensor u8 = intTensor({}, DataType::kU8, [](int64_t) { return 1; });
  const Tensor i8 = intTensor({}, DataType::kI8, [](int64_t) { return 1; });
  expectFailsNaming(runOp("ConvInteger", {x, w, i8}, {}, 1, BackendType::kCPU), "ConvInteger", "x_zero_point");
  expectFailsNaming(runOp("ConvInteger", {x, w, u8, u8}, {}, 1, BackendType::kCPU), "ConvInteger", "w_zero_point");
  expectFailsNaming(runOp("ConvInteger", {x, w, intTensor({4}, DataType::kU8, [](int64_t) { return 0; })}, {}, 1,
                          BackendType::kCPU),
                    "ConvInteger", "must have 1 element");
  expectFailsNaming(runOp("ConvInteger", {x, w, u8, intTensor({4}, DataType::kI8, [](int64_t) { return 0; })}, {}, 1,
                          BackendType::kCPU),
                    "ConvInteger", "one per output channel (6)");
  Attributes group3;
  group3.setInt("group", 3);
  expectFailsNaming(runOp("ConvInteger", {x, w}, group3, 1, BackendType::kCPU), "ConvInteger", "group 3");
  expectFailsNaming(runOp("ConvInteger", {x, intTensor({6, 3, 3, 3}, DataType::kI8, [](int64_t) { return 0; })}, {}, 1,
                          BackendType::kCPU),
                    "ConvInteger", "channels");
  expectFailsNaming(runOp("ConvInteger", {randomTensor({1, 4, 5, 5}, 1), w}, {}, 1, BackendType::kCPU), "ConvInteger",
                    "int8 or uint8");
  const Tensor s = tensorFrom({}, {0.1f});
  expectFailsNaming(runOp("QLinearConv", {x, s, u8, w, s, i8, s, u8, tensorFrom({6}, {1, 2, 3, 4, 5, 6})}, {}, 1,
                          BackendType::kCPU),
                    "QLinearConv", "bias 'B'");
  expectFailsNaming(runOp("QLinearConv", {x, s, u8, w, tensorFrom({5}, {1, 1, 1, 1, 1}), i8, s, u8}, {}, 1,
                          BackendType::kCPU),
                    "QLinearConv", "w_scale");
  expectFailsNaming(runOp("QLinearConv", {x, tensorFrom({4}, {1, 1, 1, 1}), u8, w, s, i8, s, u8}, {}, 1,
                          BackendType::kCPU),
                    "QLinearConv", "x_scale");
  expectFailsNaming(runOp("QLinearConv", {x, s, u8, w, s, i8, s, omittedInput()}, {}, 1, BackendType::kCPU),
                    "QLinearConv", "y_zero_point is required");
}

}  // namespace
}  // namespace test
}  // namespace tessera
