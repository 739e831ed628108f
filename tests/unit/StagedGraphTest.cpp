// Graphs with a node whose output shapes come from run-time values (NonZero here) run in
// stages around it: the answers equal a hand computation on every backend, the nodes before
// and after it stay on the Session's backend, the report, trace and profile cover every node
// in order, later stages keep their plans per shape, and a constant input still folds.
#include <gtest/gtest.h>

#include "ops/NaiveIndex.hpp"
#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {
namespace {

// x [n] -> Relu -> NonZero -> Cast f32 -> Mul 2 -> y;  x -> Neg -> z (before the split).
// With `twice`, y goes through a second NonZero stage: y -> Sub 4 -> NonZero -> w.
std::shared_ptr<Graph> stagedGraph(bool twice) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {-1});
  const std::string r = gb.op1("Relu", {x});
  gb.output(gb.op1("Neg", {x}));  // named by the builder; found by dtype below
  Attributes cast;
  cast.setInt("to", 1);
  const std::string idx = gb.op1("NonZero", {r});
  const std::string y = gb.op1("Mul", {gb.op1("Cast", {idx}, cast), gb.constant("two", tensorFrom({}, {2.f}))});
  gb.output(y);
  if (twice) gb.output(gb.op1("NonZero", {gb.op1("Sub", {y, gb.constant("four", tensorFrom({}, {4.f}))})}),
                       DataType::kI64);
  std::shared_ptr<Graph> g;
  EXPECT_TRUE(gb.build(&g).isOk());
  return g;
}

// The expected y: 2 * (indices of the positive elements of x), shape [1, count].
Tensor expectedY(const std::vector<float>& x) {
  std::vector<float> v;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i] > 0) v.push_back(2.f * static_cast<float>(i));
  return tensorFrom({1, static_cast<int64_t>(v.size())}, v);
}

TEST(StagedGraph, NonZeroMidGraphGivesTheHandComputedAnswerOnEveryBackend) {
  const std::vector<std::vector<float>> inputs = {{1, -2, 3, 0, 5}, {-1, -1}, {4, 4, 4}, {0.5f, -3, 2, 7, -1, 0, 9}};
  for (BackendType b : availableBackends()) {
    const std::string where = backendTypeName(b);
    std::shared_ptr<Graph> g = stagedGraph(false);
    SessionOptions o;
    o.backends = {b};
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(g, o, &s).isOk()) << where;
    for (int cycle = 0; cycle < 2; ++cycle)
      for (const auto& xv : inputs) {
        const Tensor x = tensorFrom({static_cast<int64_t>(xv.size())}, xv);
        std::map<std::string, Tensor> outs;
        const Status st = s->run({{"x", x}}, &outs);
        ASSERT_TRUE(st.isOk()) << where << ": " << st.message();
        ASSERT_EQ(outs.size(), 2u);
        expectClose(outs[g->outputs[1].name], expectedY(xv), 0, 0, where + " y");
        Tensor negX = tensorFrom(x.shape(), xv);
        for (int64_t i = 0; i < negX.elementCount(); ++i) negX.data<float>()[i] = -xv[i];
        expectClose(outs[g->outputs[0].name], negX, 0, 0, where + " z");
      }
    // Every node is in the report, in graph order; only NonZero is on the CPU.
    const PlacementReport& r = s->report();
    ASSERT_EQ(r.nodes.size(), g->nodes.size()) << where;
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      EXPECT_EQ(r.nodes[i].opType, g->nodes[i].opType) << where;
      EXPECT_FALSE(r.nodes[i].folded) << where << " " << r.nodes[i].node;
      if (r.nodes[i].opType == "NonZero" || r.nodes[i].opType == "Cast")  // Cast: no GPU int64 kernel
        continue;
      EXPECT_EQ(r.nodes[i].backend, b) << where << " " << r.nodes[i].node;
    }
    EXPECT_EQ(r.nodes[2].backend, BackendType::kCPU);  // NonZero
  }
}

// The map of one run handed to the next: the last stage refills y where nothing else holds
// it (Session::run), and leaves a y the caller kept alone.
TEST(StagedGraph, TheLastStageRefillsTheCallersOutputs) {
  std::shared_ptr<Graph> g = stagedGraph(false);
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  const std::string y = g->outputs[1].name;
  const std::vector<float> first = {1, -2, 3, 0, 5}, second = {0, 1, 0, 1, 1};  // 3 positive each
  std::map<std::string, Tensor> outs;
  ASSERT_TRUE(s->run({{"x", tensorFrom({5}, first)}}, &outs).isOk());
  const void* memory = outs.at(y).data();
  ASSERT_TRUE(s->run({{"x", tensorFrom({5}, second)}}, &outs).isOk());
  expectClose(outs.at(y), expectedY(second), 0, 0, "y, second run");
  EXPECT_EQ(outs.at(y).data(), memory) << "y was not refilled";
  const Tensor kept = outs.at(y);
  ASSERT_TRUE(s->run({{"x", tensorFrom({5}, first)}}, &outs).isOk());
  expectClose(outs.at(y), expectedY(first), 0, 0, "y, third run");
  expectClose(kept, expectedY(second), 0, 0, "the kept y after the third run");
}

TEST(StagedGraph, LaterStagesKeepTheirPlansPerShape) {
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(stagedGraph(false), SessionOptions{}, &s).isOk());
  // Same input length, different non-zero counts: the first stage plans once, the second
  // once per count; the second cycle plans nothing.
  const std::vector<std::vector<float>> inputs = {{1, 1, 1, 1}, {1, 0, 0, 1}, {0, 0, 0, 1}};
  for (int cycle = 0; cycle < 2; ++cycle)
    for (const auto& xv : inputs) {
      std::map<std::string, Tensor> outs;
      ASSERT_TRUE(s->run({{"x", tensorFrom({4}, xv)}}, &outs).isOk());
    }
  const Session::PlanCacheStats st = s->planCache();
  EXPECT_EQ(st.plansMade, 1 + 3);
  EXPECT_EQ(st.plansReused, 3);  // the second cycle's three later-stage plans
  EXPECT_EQ(st.kept, 1 + 3);
}

TEST(StagedGraph, TwoSplitNodesAndTraceAndProfileCoverEveryNode) {
  std::shared_ptr<Graph> g = stagedGraph(true);
  SessionOptions o;
  o.trace = true;
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, o, &s).isOk());
  ASSERT_TRUE(s->setProfiling(true).isOk());
  // y = [[0, 4, 8]]; y - 4 = [[-4, 0, 4]] -> w = [[0, 0], [0, 2]]
  const std::vector<float> xv = {3, -1, 2, 0, 8};
  std::map<std::string, Tensor> outs;
  const Status st = s->run({{"x", tensorFrom({5}, xv)}}, &outs);
  ASSERT_TRUE(st.isOk()) << st.message();
  const Tensor& w = outs[g->outputs[2].name];
  expectSameBytes(w, tensorFromInts({2, 2}, {0, 0, 0, 2}), "w");
  EXPECT_EQ(s->report().nodes.size(), g->nodes.size());
  std::vector<TracedOutput> t;
  ASSERT_TRUE(s->trace(&t).isOk());
  ASSERT_EQ(t.size(), g->nodes.size());  // one output per node
  for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t[i].output, g->nodes[i].outputs[0]);
  EXPECT_EQ(t[2].value.shape(), (Shape{1, 3}));  // the first NonZero's indices
  size_t opSteps = 0;
  for (const auto& e : s->profile()) opSteps += !e.opType.empty();
  EXPECT_EQ(opSteps, g->nodes.size());
}

TEST(StagedGraph, NonZeroOfAConstantFoldsAndNeedsNoStage) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {-1});
  Attributes cast;
  cast.setInt("to", 1);
  Attributes keep0;
  keep0.setInt("keepdims", 0);
  const std::string idx = gb.op1("NonZero", {gb.constant("c", tensorFrom({2, 3}, {0, 1, 0, 2, 0, 3}))});
  gb.output(gb.op1("Add", {x, gb.op1("ReduceSum", {gb.op1("Cast", {idx}, cast)}, keep0)}));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  std::map<std::string, Tensor> outs;
  ASSERT_TRUE(s->run({{"x", tensorFrom({2}, {1, 2})}}, &outs).isOk());
  // Indices of 1, 2, 3: rows 0, 1, 1 and columns 1, 0, 2: their sum is 5.
  expectClose(outs.begin()->second, tensorFrom({2}, {6, 7}), 0, 0, "x + 5");
  EXPECT_TRUE(s->report().nodes[0].folded);
  EXPECT_EQ(s->planCache().plansMade, 1);
}

}  // namespace
}  // namespace test
}  // namespace tessera
