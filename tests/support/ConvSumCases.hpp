// Conv with input Z (ops/Conv.hpp: y = act(conv(x) + b + Z), set by tools/onnx/FuseConvAdd)
// against the graph it replaces, Conv -> Add -> activation, run on the CPU. Shared by
// tests/unit/GraphPassesTest.cpp and the GPU suites. The cases reach every Conv kernel: the
// CPU's GEMM (ragged 6-channel output blocks, groups, pointwise read in place), Winograd,
// few-channel and depthwise kernels and 1-D on NCHW; the GPUs' GEMM, depthwise and generic
// (groups of 3) kernels; batch 2, odd sizes, channels not a multiple of 4 throughout.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {

struct ConvSumCase {
  const char* what;
  Shape x;
  int64_t m, group;
  std::vector<int64_t> kernel, strides, pads;
};

inline const std::vector<ConvSumCase>& convSumCases() {
  static const std::vector<ConvSumCase> cases = {
      {"gemm", {2, 5, 7, 9}, 14, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {"gemm strided", {2, 5, 7, 9}, 6, 1, {3, 3}, {2, 2}, {1, 0, 1, 1}},
      {"generic groups", {2, 6, 5, 7}, 6, 2, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {"gemm groups of 4", {2, 8, 5, 7}, 8, 2, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {"pointwise", {2, 8, 5, 7}, 13, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}},
      {"winograd", {2, 16, 7, 9}, 18, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {"few outputs", {2, 12, 7, 9}, 6, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {"few channels", {2, 3, 9, 11}, 6, 1, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      {"depthwise", {2, 5, 7, 9}, 5, 5, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {"depthwise strided", {2, 6, 7, 9}, 6, 6, {5, 5}, {2, 2}, {2, 2, 2, 2}},
      {"1-D", {2, 5, 9}, 6, 1, {3}, {1}, {1, 1}},
  };
  return cases;
}

// An activation after the Add: its ONNX op ("" for none) and FusedActivation parameters.
struct ConvSumActivation {
  const char* op;
  std::vector<float> params;
};

inline const std::vector<ConvSumActivation>& convSumActivations() {
  static const std::vector<ConvSumActivation> acts = {
      {"", {}},          {"Relu", {}},    {"Clip", {-0.5f, 0.75f}}, {"Clip", {0.f, 6.f}},
      {"LeakyRelu", {0.1f}}, {"Sigmoid", {}}, {"HardSigmoid", {0.25f, 0.4f}}, {"HardSwish", {}}};
  return acts;
}

inline Shape convSumWeightShape(const ConvSumCase& c) {
  Shape w = {c.m, c.x[1] / c.group};
  w.insert(w.end(), c.kernel.begin(), c.kernel.end());
  return w;
}

// The Conv's output shape (one Conv on the CPU).
inline Shape convSumOutputShape(const ConvSumCase& c, const Attributes& conv) {
  OpRun r = runOp("Conv", {randomTensor(c.x, 1), randomTensor(convSumWeightShape(c), 2)}, conv, 1,
                  BackendType::kCPU, {false, true});
  EXPECT_TRUE(r.status.isOk()) << c.what << ": " << r.status.message();
  return r.outputs.empty() ? Shape() : r.outputs[0].shape();
}

inline Attributes convSumAttributes(const ConvSumCase& c) {
  Attributes a;
  a.setInt("group", c.group);
  a.setInts("strides", c.strides);
  a.setInts("pads", c.pads);
  return a;
}

// Graph inputs x and z; constant weights and bias. Fused: one Conv with Z and the activation
// as attributes; else Conv, Add, activation.
inline std::shared_ptr<Graph> convSumGraph(const ConvSumCase& c, const ConvSumActivation& act, const Shape& y,
                                           bool fused) {
  GraphBuilder g;
  g.input("x", DataType::kF32, std::vector<int64_t>(c.x.begin(), c.x.end()));
  g.input("z", DataType::kF32, std::vector<int64_t>(y.begin(), y.end()));
  const std::string w = g.constant("w", randomTensor(convSumWeightShape(c), 11));
  const std::string b = g.constant("b", randomTensor({c.m}, 12));
  Attributes conv = convSumAttributes(c);
  std::string out;
  const std::string op = act.op;
  if (fused) {
    if (!op.empty()) {
      conv.setString("activation", op);
      if (!act.params.empty()) conv.setFloats("activation_params", act.params);
    }
    out = g.op1("Conv", {"x", w, b, "z"}, conv);
  } else {
    out = g.op1("Add", {g.op1("Conv", {"x", w, b}, conv), "z"});
    Attributes a;
    std::vector<std::string> in = {out};
    if (op == "Clip") {
      Tensor lo = Tensor::hostAllocate({}, DataType::kF32), hi = Tensor::hostAllocate({}, DataType::kF32);
      lo.data<float>()[0] = act.params[0];
      hi.data<float>()[0] = act.params[1];
      in.push_back(g.constant("lo", lo));
      in.push_back(g.constant("hi", hi));
    }
    if (op == "LeakyRelu") a.setFloat("alpha", act.params[0]);
    if (op == "HardSigmoid") {
      a.setFloat("alpha", act.params[0]);
      a.setFloat("beta", act.params[1]);
    }
    if (!op.empty()) out = g.op1(op, in, a);
  }
  g.output(out);
  std::shared_ptr<Graph> graph;
  EXPECT_TRUE(g.build(&graph).isOk());
  return graph;
}

inline Status runConvSumGraph(const std::shared_ptr<Graph>& g, const SessionOptions& o, const Tensor& x,
                              const Tensor& z, Tensor* y, PlacementReport* report) {
  std::unique_ptr<Session> s;
  TESSERA_RETURN_IF_ERROR(Session::create(g, o, &s));
  std::map<std::string, Tensor> out;
  TESSERA_RETURN_IF_ERROR(s->run({{"x", x}, {"z", z}}, &out));
  *y = out.begin()->second;
  if (report) *report = s->report();
  return Status::ok();
}

// The fused Conv on `backend` (every node there, none folded) against the unfused graph on
// the CPU.
inline void expectConvSumMatchesUnfused(const ConvSumCase& c, const ConvSumActivation& act, BackendType backend,
                                        Precision precision = Precision::kFP32, double rtol = 1e-4,
                                        double atol = 1e-5) {
  const std::string what = std::string(c.what) + " " + (*act.op ? act.op : "no activation") + " on " +
                           backendTypeName(backend) + (precision == Precision::kFP16 ? " fp16" : "");
  const Shape y = convSumOutputShape(c, convSumAttributes(c));
  const Tensor x = randomTensor(c.x, 13, -2.f, 2.f), z = randomTensor(y, 14, -2.f, 2.f);
  Tensor expected, actual;
  SessionOptions cpu;
  Status st = runConvSumGraph(convSumGraph(c, act, y, false), cpu, x, z, &expected, nullptr);
  ASSERT_TRUE(st.isOk()) << what << ": unfused on the CPU: " << st.message();
  SessionOptions o;
  o.backends = {backend};
  o.precision = precision;
  PlacementReport report;
  st = runConvSumGraph(convSumGraph(c, act, y, true), o, x, z, &actual, &report);
  ASSERT_TRUE(st.isOk()) << what << ": " << st.message();
  ASSERT_EQ(report.nodes.size(), 1u) << what;
  ASSERT_EQ(report.nodes[0].backend, backend) << what << ": ran on " << backendTypeName(report.nodes[0].backend);
  ASSERT_FALSE(report.nodes[0].folded) << what;
  expectClose(actual, expected, rtol, atol, what);
}

}  // namespace test
}  // namespace tessera
