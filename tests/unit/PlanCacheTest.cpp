// The Session's plan cache (SessionOptions::planCacheSize): a repeated input shape reuses its
// plan with nothing re-planned and gives the same outputs as a fresh Session; the bound
// holds (least recently used dropped first); inputs whose values define shapes re-plan when
// those values change, and come back to the kept plan when they return; data inputs are
// never specialized.
#include <gtest/gtest.h>

#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {
namespace {

// x [1, 3, H, W] -> Conv 3x3 (constant weights) -> Relu -> Add with x's channel mean: ops
// whose plans depend on the shape (tiles, scratch, packed weights, memory plan).
std::shared_ptr<Graph> convGraph() {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {1, 3, -1, -1});
  Attributes conv;
  conv.setInts("pads", {1, 1, 1, 1});
  const std::string c = gb.op1("Conv", {x, gb.constant("w", randomTensor({5, 3, 3, 3}, 7)),
                                        gb.constant("b", randomTensor({5}, 8))}, conv);
  const std::string r = gb.op1("Relu", {c});
  gb.output(gb.op1("Add", {r, gb.op1("GlobalAveragePool", {r})}));
  std::shared_ptr<Graph> g;
  EXPECT_TRUE(gb.build(&g).isOk());
  return g;
}

Tensor runOnce(const std::shared_ptr<Graph>& g, const Tensor& x) {
  std::unique_ptr<Session> s;
  EXPECT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  std::map<std::string, Tensor> outs;
  const Status st = s->run({{"x", x}}, &outs);
  EXPECT_TRUE(st.isOk()) << st.message();
  return outs.begin()->second;
}

TEST(PlanCache, RepeatedShapesReuseTheirPlans) {
  const std::shared_ptr<Graph> g = convGraph();
  const std::vector<Tensor> xs = {randomTensor({1, 3, 7, 9}, 1), randomTensor({1, 3, 5, 12}, 2),
                                  randomTensor({1, 3, 11, 4}, 3)};
  std::vector<Tensor> expected;
  for (const Tensor& x : xs) expected.push_back(runOnce(g, x));
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  for (int cycle = 0; cycle < 3; ++cycle)
    for (size_t i = 0; i < xs.size(); ++i) {
      std::map<std::string, Tensor> outs;
      ASSERT_TRUE(s->run({{"x", xs[i]}}, &outs).isOk());
      expectClose(outs.begin()->second, expected[i], 0, 0, "shape " + shapeToString(xs[i].shape()));
    }
  const Session::PlanCacheStats st = s->planCache();
  EXPECT_EQ(st.plansMade, 3);   // one per shape, nothing re-planned after the first cycle
  EXPECT_EQ(st.plansReused, 6);
  EXPECT_EQ(st.kept, 3);
  EXPECT_GT(st.keptBytes, 0u);
  // The same shape twice in a row is no change at all.
  std::map<std::string, Tensor> outs;
  ASSERT_TRUE(s->run({{"x", xs[2]}}, &outs).isOk());
  EXPECT_EQ(s->planCache().plansMade, 3);
  EXPECT_EQ(s->planCache().plansReused, 6);
  // resize() to a kept shape reuses it too.
  ASSERT_TRUE(s->resize({{"x", xs[0].shape()}}).isOk());
  EXPECT_EQ(s->planCache().plansMade, 3);
  EXPECT_EQ(s->planCache().plansReused, 7);
}

// Constant weights are packed once per Session: new shapes re-plan the Conv but find its
// weights packed (3x3 GEMM conv, pointwise GEMM conv, depthwise conv, MatMul); with the
// cache off (bound 1) every shape still shares them. Weights computed at run time are not
// cached and still give the right answers.
TEST(PlanCache, ConstantWeightsArePackedOncePerSession) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {1, 4, -1, -1});
  Attributes pad;
  pad.setInts("pads", {1, 1, 1, 1});
  Attributes dw = pad;
  dw.setInt("group", 8);
  std::string y = gb.op1("Conv", {x, gb.constant("w1", randomTensor({8, 4, 3, 3}, 7))}, pad);
  y = gb.op1("Conv", {y, gb.constant("w2", randomTensor({8, 1, 3, 3}, 8)), gb.constant("b2", randomTensor({8}, 9))}, dw);
  y = gb.op1("Conv", {y, gb.constant("w3", randomTensor({6, 8, 1, 1}, 10))});
  y = gb.op1("MatMul", {y, gb.constant("m", randomTensor({5, 5}, 11))});  // W is 5 in every shape below
  // Weights computed at run time: w1 scaled by a graph input.
  const std::string scaled = gb.op1("Mul", {gb.constant("w4", randomTensor({2, 4, 1, 1}, 12)), gb.input("k", DataType::kF32, {1})});
  gb.output(y);
  gb.output(gb.op1("Conv", {x, scaled}));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  const std::vector<Tensor> xs = {randomTensor({1, 4, 7, 5}, 1), randomTensor({1, 4, 3, 5}, 2),
                                  randomTensor({1, 4, 12, 5}, 3)};
  for (int bound : {16, 1}) {
    SessionOptions o;
    o.planCacheSize = bound;
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(g, o, &s).isOk());
    uint64_t bytes = 0;
    for (int cycle = 0; cycle < 2; ++cycle)
      for (size_t i = 0; i < xs.size(); ++i) {
        const Tensor k = randomTensor({1}, 20 + static_cast<int>(i));
        std::map<std::string, Tensor> outs, fresh;
        ASSERT_TRUE(s->run({{"x", xs[i]}, {"k", k}}, &outs).isOk());
        std::unique_ptr<Session> f;
        ASSERT_TRUE(Session::create(g, o, &f).isOk());
        ASSERT_TRUE(f->run({{"x", xs[i]}, {"k", k}}, &fresh).isOk());
        for (const auto& kv : fresh) expectClose(outs[kv.first], kv.second, 0, 0, kv.first + " bound " + std::to_string(bound));
        const Session::PlanCacheStats st = s->planCache();
        EXPECT_EQ(st.weightPackings, 4u) << "bound " << bound << ", shape " << i;  // w1, w2+b2, w3, m
        if (bytes == 0) bytes = st.packedWeightBytes;
        EXPECT_EQ(st.packedWeightBytes, bytes);
      }
    EXPECT_GT(bytes, (8 * 4 * 9 + 8 * 9 + 6 * 8 + 25) * sizeof(float));
  }
}

// A ConvTranspose whose taps overlap (ConvTransposePhases: a GEMM per output phase) packs
// its weights once for every shape: a 1x1 input gives a 1x1 output, which no odd phase
// reaches, and the larger shapes after it need every phase's weights from that packing.
TEST(PlanCache, ConvTransposePhasesShareOnePackingAcrossShapes) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {1, 6, -1, -1});
  Attributes a;
  a.setInts("kernel_shape", {3, 3});
  a.setInts("strides", {2, 2});
  a.setInts("pads", {1, 1, 1, 1});
  gb.output(gb.op1("ConvTranspose", {x, gb.constant("w", randomTensor({6, 5, 3, 3}, 7)),
                                     gb.constant("b", randomTensor({5}, 8))}, a));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  const std::vector<Tensor> xs = {randomTensor({1, 6, 1, 1}, 1), randomTensor({1, 6, 4, 5}, 2),
                                  randomTensor({1, 6, 1, 3}, 3)};
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  for (const Tensor& xi : xs) {
    std::map<std::string, Tensor> outs;
    ASSERT_TRUE(s->run({{"x", xi}}, &outs).isOk());
    expectClose(outs.begin()->second, runOnce(g, xi), 0, 0, "shape " + shapeToString(xi.shape()));
  }
  EXPECT_EQ(s->planCache().weightPackings, 1u);
}

// Weights folded at planning (here Transpose of an initializer) are new tensors in every
// plan: their packings are dropped with the plans, so ever new shapes do not grow the
// Session.
TEST(PlanCache, PackingsOfFoldedWeightsGoWithTheirPlans) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {1, 4, -1, -1});
  Attributes perm;
  perm.setInts("perm", {1, 0, 2, 3});
  const std::string w = gb.op1("Transpose", {gb.constant("wt", randomTensor({4, 8, 3, 3}, 7))}, perm);
  Attributes pad;
  pad.setInts("pads", {1, 1, 1, 1});
  gb.output(gb.op1("Conv", {x, w}, pad));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  SessionOptions o;
  o.planCacheSize = 2;
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, o, &s).isOk());
  uint64_t first = 0;
  for (int h = 3; h < 13; ++h) {
    std::map<std::string, Tensor> outs;
    ASSERT_TRUE(s->run({{"x", randomTensor({1, 4, h, 5}, h)}}, &outs).isOk());
    if (!first) first = s->planCache().packedWeightBytes;
    EXPECT_LE(s->planCache().packedWeightBytes, 3 * first) << "height " << h;  // the kept plans' and one more
  }
  EXPECT_GT(first, 0u);
  EXPECT_GE(s->planCache().weightPackings, 10u);  // one per plan: each folds its own weights
}

TEST(PlanCache, TheBoundHoldsLeastRecentlyUsedFirst) {
  const std::shared_ptr<Graph> g = convGraph();
  SessionOptions o;
  o.planCacheSize = 2;
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, o, &s).isOk());
  const Tensor a = randomTensor({1, 3, 6, 6}, 1), b = randomTensor({1, 3, 7, 7}, 2), c = randomTensor({1, 3, 8, 8}, 3);
  std::map<std::string, Tensor> outs;
  for (const Tensor* x : {&a, &b, &a, &c, &a, &b}) {
    ASSERT_TRUE(s->run({{"x", *x}}, &outs).isOk());
    EXPECT_LE(s->planCache().kept, 2);
  }
  // a, b made; a reused; c made (b dropped: least recently used); a reused; b made again.
  EXPECT_EQ(s->planCache().plansMade, 4);
  EXPECT_EQ(s->planCache().plansReused, 2);
  expectClose(outs.begin()->second, runOnce(g, b), 0, 0, "re-planned after being dropped");

  o.planCacheSize = 1;  // only the plan in use
  ASSERT_TRUE(Session::create(g, o, &s).isOk());
  for (const Tensor* x : {&a, &b, &a}) ASSERT_TRUE(s->run({{"x", *x}}, &outs).isOk());
  EXPECT_EQ(s->planCache().plansMade, 3);
  EXPECT_EQ(s->planCache().plansReused, 0);
  EXPECT_EQ(s->planCache().kept, 1);
}

TEST(PlanCache, ShapeDefiningInputValuesSelectTheirPlan) {
  // Reshape's target fed at run time: same input shapes, different plans per value.
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {2, 6});
  const std::string shape = gb.input("shape", DataType::kI64, {2});
  gb.output(gb.op1("Relu", {gb.op1("Reshape", {x, shape})}));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  const Tensor xv = randomTensor({2, 6}, 1);
  for (const Shape& target : {Shape{3, 4}, Shape{4, 3}, Shape{3, 4}, Shape{12, 1}}) {
    std::map<std::string, Tensor> outs;
    const Status st = s->run({{"x", xv}, {"shape", tensorFromInts({2}, {target[0], target[1]})}}, &outs);
    ASSERT_TRUE(st.isOk()) << st.message();
    EXPECT_EQ(outs.begin()->second.shape(), target);
  }
  EXPECT_EQ(s->planCache().plansMade, 3);  // {3, 4} came back to its kept plan
  EXPECT_EQ(s->planCache().plansReused, 1);
}

// Only inputs whose values planning needs are specialized (tessera/ValueNeeds.hpp): a small
// 1-D data input next to Reshape's run-time target stays a run-time tensor, so the Reshape
// is not folded and new data values reuse the plan; a new target re-plans.
TEST(PlanCache, DataInputsAreNeverSpecialized) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {4});
  const std::string shape = gb.input("shape", DataType::kI64, {2});
  gb.output(gb.op1("Reshape", {x, shape}));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  struct Run { uint32_t seed; Shape target; };
  for (const Run& r : {Run{1, {2, 2}}, Run{2, {2, 2}}, Run{3, {4, 1}}}) {
    const Tensor xv = randomTensor({4}, r.seed);
    std::map<std::string, Tensor> outs;
    const Status st = s->run({{"x", xv}, {"shape", tensorFromInts({2}, {r.target[0], r.target[1]})}}, &outs);
    ASSERT_TRUE(st.isOk()) << st.message();
    const Tensor& y = outs.begin()->second;
    ASSERT_EQ(y.shape(), r.target);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(y.data<float>()[i], xv.data<float>()[i]);
    bool reshapeRan = false;
    for (const auto& n : s->report().nodes) reshapeRan = reshapeRan || (n.opType == "Reshape" && !n.folded);
    EXPECT_TRUE(reshapeRan) << "the Reshape was folded: its data input was specialized";
  }
  EXPECT_EQ(s->planCache().plansMade, 2);  // new x values reuse the plan; the new target does not
}

}  // namespace
}  // namespace test
}  // namespace tessera
