// If, Loop and Scan, imported from ONNX bytes: answers equal a hand computation on every
// backend; sub-graphs read outer-scope values; their nodes run on the Session's backend and the
// report shows where; a Loop's trip count is a run-time value; a body keeps its plan across
// iterations; a Loop with neither trip count nor condition is a clear error.
#include <gtest/gtest.h>

#include "OnnxModelBytes.hpp"
#include "support/OpTest.hpp"
#include "tessera/OnnxImporter.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {
namespace {

std::shared_ptr<Graph> load(const GraphParts& parts, int opset = 13) {
  const std::string bytes = modelBytes(parts, opset);
  std::shared_ptr<Graph> g;
  const Status st = loadOnnxModelFromBytes(bytes.data(), bytes.size(), &g);
  EXPECT_TRUE(st.isOk()) << st.message();
  return g;
}

Tensor boolScalar(bool v) {
  Tensor t = Tensor::hostAllocate({}, DataType::kBool);
  *t.data<bool>() = v;
  return t;
}

std::unique_ptr<Session> session(const std::shared_ptr<Graph>& g, BackendType b) {
  SessionOptions o;
  o.backends = {b};
  std::unique_ptr<Session> s;
  EXPECT_TRUE(Session::create(g, o, &s).isOk());
  return s;
}

// a = Relu(x); y = If(c) then a * a else -a: both branches read `a` from the outer graph.
GraphParts ifParts() {
  GraphParts thenG, elseG, p;
  thenG.nodes.push_back(nodeProto("Mul", {"a", "a"}, {"t"}, "square"));
  thenG.outputs.push_back(valueInfoProto("t", kOnnxFloat, {-1}));
  elseG.nodes.push_back(nodeProto("Neg", {"a"}, {"e"}, "negate"));
  elseG.outputs.push_back(valueInfoProto("e", kOnnxFloat, {-1}));
  p.inputs.push_back(valueInfoProto("x", kOnnxFloat, {-1}));
  p.inputs.push_back(valueInfoProto("c", kOnnxBool, {}));
  p.outputs.push_back(valueInfoProto("y", kOnnxFloat, {-1}));
  p.nodes.push_back(nodeProto("Relu", {"x"}, {"a"}, "relu"));
  p.nodes.push_back(nodeProto("If", {"c"}, {"y"}, "branch",
                              {graphAttribute("then_branch", graphProto(thenG)),
                               graphAttribute("else_branch", graphProto(elseG))}));
  return p;
}

TEST(ControlFlow, IfReadsOuterValuesAndRunsItsBranchOnTheBackend) {
  const std::vector<float> xv = {-1.5f, 2.f, 0.5f, -3.f, 4.f};
  const Tensor x = tensorFrom({5}, xv);
  for (BackendType b : availableBackends()) {
    const std::string where = backendTypeName(b);
    std::shared_ptr<Graph> g = load(ifParts());
    ASSERT_TRUE(g);
    ASSERT_EQ(g->nodes[1].inputs, (std::vector<std::string>{"c", "a"})) << "the outer value becomes an input";
    std::unique_ptr<Session> s = session(g, b);
    for (bool c : {true, false, true}) {
      std::map<std::string, Tensor> outs;
      const Status st = s->run({{"x", x}, {"c", boolScalar(c)}}, &outs);
      ASSERT_TRUE(st.isOk()) << where << ": " << st.message();
      std::vector<float> want;
      for (float v : xv) want.push_back(c ? std::max(v, 0.f) * std::max(v, 0.f) : -std::max(v, 0.f));
      expectClose(outs["y"], tensorFrom({5}, want), 1e-6, 0, where + (c ? " then" : " else"));
    }
    const PlacementReport& r = s->report();
    ASSERT_EQ(r.nodes.size(), 2u);
    EXPECT_EQ(r.nodes[0].backend, b) << where;
    EXPECT_EQ(r.nodes[1].backend, BackendType::kCPU) << where << ": the If itself runs on the host";
    ASSERT_EQ(r.nodes[1].subgraphs.size(), 2u) << where;  // both branches have run
    for (const std::string& line : r.nodes[1].subgraphs)
      EXPECT_NE(line.find(std::string("-> ") + where), std::string::npos) << line;
    EXPECT_NE(r.toString().find("  then_branch: Mul 'square' -> " + where), std::string::npos) << r.toString();
  }
}

// Loop: acc_{i+1} = acc_i + x (x from the outer graph), scan output acc_{i+1} per iteration;
// with `whileLess`, the body's condition is i < whileLess instead of passing cond on.
GraphParts loopParts(bool withM, bool withCond, int64_t whileLess = -1) {
  GraphParts body, p;
  body.inputs.push_back(valueInfoProto("i", kOnnxInt64, {}));
  body.inputs.push_back(valueInfoProto("cond_in", kOnnxBool, {}));
  body.inputs.push_back(valueInfoProto("acc", kOnnxFloat, {-1}));
  if (whileLess >= 0) {
    body.initializers.push_back([&] {
      ProtoBytes t;
      t.varint(2, kOnnxInt64).bytes(8, "limit");
      t.varint(7, static_cast<uint64_t>(whileLess));
      return t;
    }());
    body.nodes.push_back(nodeProto("Less", {"i", "limit"}, {"cond_out"}, "still"));
  } else {
    body.nodes.push_back(nodeProto("Identity", {"cond_in"}, {"cond_out"}, "keep"));
  }
  body.nodes.push_back(nodeProto("Add", {"acc", "x"}, {"acc_out"}, "accumulate"));
  body.nodes.push_back(nodeProto("Identity", {"acc_out"}, {"scan"}, "record"));
  body.outputs.push_back(valueInfoProto("cond_out", kOnnxBool, {}));
  body.outputs.push_back(valueInfoProto("acc_out", kOnnxFloat, {-1}));
  body.outputs.push_back(valueInfoProto("scan", kOnnxFloat, {-1}));
  p.inputs.push_back(valueInfoProto("x", kOnnxFloat, {-1}));
  p.inputs.push_back(valueInfoProto("init", kOnnxFloat, {-1}));
  if (withM) p.inputs.push_back(valueInfoProto("m", kOnnxInt64, {}));
  if (withCond) p.inputs.push_back(valueInfoProto("c", kOnnxBool, {}));
  p.outputs.push_back(valueInfoProto("final", kOnnxFloat, {-1}));
  p.outputs.push_back(valueInfoProto("all", kOnnxFloat, {-1, -1}));
  p.nodes.push_back(nodeProto("Loop", {withM ? "m" : "", withCond ? "c" : "", "init"}, {"final", "all"}, "repeat",
                              {graphAttribute("body", graphProto(body))}));
  return p;
}

TEST(ControlFlow, LoopWithARunTimeTripCountPlansItsBodyOnce) {
  const Tensor x = tensorFrom({3}, {1.f, -2.f, 0.5f}), init = tensorFrom({3}, {10.f, 20.f, 30.f});
  for (BackendType b : availableBackends()) {
    const std::string where = backendTypeName(b);
    std::shared_ptr<Graph> g = load(loopParts(true, true));
    ASSERT_TRUE(g);
    std::unique_ptr<Session> s = session(g, b);
    for (int64_t m : {5, 2, 5}) {
      std::map<std::string, Tensor> outs;
      const Status st = s->run({{"x", x}, {"init", init}, {"m", tensorFromInts({}, {m})}, {"c", boolScalar(true)}}, &outs);
      ASSERT_TRUE(st.isOk()) << where << ": " << st.message();
      std::vector<float> fin(3), all;
      for (int64_t k = 1; k <= m; ++k)
        for (int j = 0; j < 3; ++j) all.push_back(init.data<float>()[j] + k * x.data<float>()[j]);
      for (int j = 0; j < 3; ++j) fin[j] = init.data<float>()[j] + m * x.data<float>()[j];
      expectClose(outs["final"], tensorFrom({3}, fin), 1e-6, 0, where + " final, m " + std::to_string(m));
      expectClose(outs["all"], tensorFrom({m, 3}, all), 1e-6, 0, where + " scan output, m " + std::to_string(m));
    }
    // One body shape throughout: planned once, for all 12 iterations of three runs.
    EXPECT_EQ(s->planCache().plansMade, 1) << where;
    // The float Add runs on the backend (the bool Identity on the CPU: no GPU bool kernels).
    const std::string report = s->report().toString();
    EXPECT_NE(report.find("  body: Add 'accumulate' -> " + where), std::string::npos) << report;
  }
}

TEST(ControlFlow, LoopConditionAloneStopsIt) {
  std::shared_ptr<Graph> g = load(loopParts(false, true, 3));
  std::unique_ptr<Session> s = session(g, BackendType::kCPU);
  std::map<std::string, Tensor> outs;
  const Status st = s->run({{"x", tensorFrom({1}, {1.f})}, {"init", tensorFrom({1}, {0.f})}, {"c", boolScalar(true)}}, &outs);
  ASSERT_TRUE(st.isOk()) << st.message();
  // Iterations 0..3 run (the body's i < 3 is false after i = 3).
  expectClose(outs["final"], tensorFrom({1}, {4.f}), 0, 0, "final");
  EXPECT_EQ(outs["all"].shape(), (Shape{4, 1}));
  // cond false from the start: no iteration; the carried value passes through.
  ASSERT_TRUE(s->run({{"x", tensorFrom({1}, {1.f})}, {"init", tensorFrom({1}, {7.f})}, {"c", boolScalar(false)}}, &outs).isOk());
  expectClose(outs["final"], tensorFrom({1}, {7.f}), 0, 0, "no iteration");
}

TEST(ControlFlow, LoopWithoutTripCountOrConditionIsAnError) {
  std::shared_ptr<Graph> g = load(loopParts(false, false));
  std::unique_ptr<Session> s = session(g, BackendType::kCPU);
  std::map<std::string, Tensor> outs;
  const Status st = s->run({{"x", tensorFrom({1}, {1.f})}, {"init", tensorFrom({1}, {0.f})}}, &outs);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("Loop 'repeat'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("never ends"), std::string::npos) << st.message();
}

// Scan-9: running sums of the rows of X (forward) and of X reversed.
TEST(ControlFlow, ScanRunningSumsBothDirections) {
  for (int64_t direction : {0, 1}) {
    GraphParts body, p;
    body.inputs.push_back(valueInfoProto("s", kOnnxFloat, {2}));
    body.inputs.push_back(valueInfoProto("row", kOnnxFloat, {2}));
    body.nodes.push_back(nodeProto("Add", {"s", "row"}, {"s_out"}, "sum"));
    body.nodes.push_back(nodeProto("Identity", {"s_out"}, {"step"}, "record"));
    body.outputs.push_back(valueInfoProto("s_out", kOnnxFloat, {2}));
    body.outputs.push_back(valueInfoProto("step", kOnnxFloat, {2}));
    p.inputs.push_back(valueInfoProto("s0", kOnnxFloat, {2}));
    p.inputs.push_back(valueInfoProto("X", kOnnxFloat, {3, 2}));
    p.outputs.push_back(valueInfoProto("total", kOnnxFloat, {2}));
    p.outputs.push_back(valueInfoProto("steps", kOnnxFloat, {3, 2}));
    p.nodes.push_back(nodeProto("Scan", {"s0", "X"}, {"total", "steps"}, "scan",
                                {graphAttribute("body", graphProto(body)), intAttribute("num_scan_inputs", 1),
                                 intsAttribute("scan_input_directions", {direction})}));
    std::shared_ptr<Graph> g = load(p, 11);
    std::unique_ptr<Session> s = session(g, BackendType::kCPU);
    std::map<std::string, Tensor> outs;
    const Status st = s->run({{"s0", tensorFrom({2}, {0, 100})}, {"X", tensorFrom({3, 2}, {1, 2, 3, 4, 5, 6})}}, &outs);
    ASSERT_TRUE(st.isOk()) << st.message();
    expectClose(outs["total"], tensorFrom({2}, {9, 112}), 0, 0, "total");
    expectClose(outs["steps"], direction == 0 ? tensorFrom({3, 2}, {1, 102, 4, 106, 9, 112})
                                              : tensorFrom({3, 2}, {5, 106, 8, 110, 9, 112}),
                0, 0, "steps, direction " + std::to_string(direction));
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
