// Session tracing (SessionOptions::trace, Session::trace) and findDivergence: traced values
// equal the ones computed by hand on every backend present, folded constants are marked,
// tracing places nodes as an untraced run does, a fallback shows its backend, and a Relu made
// wrong by 1e-3 on the CPU is named as the op that differs.
#include <cmath>

#include "tests/support/OpTest.hpp"
#include "tests/support/TestKernels.hpp"
#include "tests/support/TraceGraph.hpp"

namespace tessera {
namespace {

// Relu + 1e-3: the perturbed kernel, CPU side.
class CpuPerturbedRelu final : public Execution {
 public:
  using Execution::Execution;
  void selectLayouts(const std::vector<Layout>&, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(in->size(), Layout::kNCHW);
    out->assign(out->size(), Layout::kNCHW);
  }
  Status onExecute(const Tensors& in, const Tensors& out) override {
    for (int64_t i = 0; i < in[0]->elementCount(); ++i)
      out[0]->data<float>()[i] = std::max(in[0]->data<float>()[i], 0.f) + test::kPerturbation;
    return Status::ok();
  }
};

TEST(Trace, ValuesEqualTheHandComputedOnesOnEveryBackend) {
  const Tensor x = test::randomTensor({2, 3, 4, 5}, 7);
  for (BackendType b : test::availableBackends()) {
    const std::string where = backendTypeName(b);
    std::vector<TracedOutput> t;
    ASSERT_TRUE(test::traceGraphRun(b, x, &t).isOk()) << where;
    ASSERT_EQ(t.size(), 5u) << where;
    const char* names[] = {"a", "b", "r", "y", "s"};
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(t[i].output, names[i]) << where;
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(t[i].backend, where) << t[i].node;
      EXPECT_FALSE(t[i].folded) << t[i].node;
      ASSERT_EQ(t[i].value.shape(), x.shape()) << t[i].node;
      for (int64_t k = 0; k < x.elementCount(); ++k)
        ASSERT_NEAR(t[i].value.data<float>()[k], test::traceGraphValue(t[i].output, x.data<float>()[k]), 1e-5)
            << where << " " << t[i].node << " element " << k;
    }
    // Shape(x) is known while planning: folded, on the host.
    EXPECT_TRUE(t[4].folded);
    EXPECT_EQ(t[4].backend, "cpu");
    ASSERT_EQ(t[4].value.elementCount(), 4);
    for (int d = 0; d < 4; ++d) EXPECT_EQ(t[4].value.data<int64_t>()[d], x.shape()[d]);
    EXPECT_EQ(t[2].inputs, std::vector<std::string>{"b"});
    EXPECT_EQ(t[2].nodeName, "act");
  }
}

TEST(Trace, NodesArePlacedAsInAnUntracedRun) {
  const Tensor x = test::randomTensor({1, 5, 3, 7}, 3);
  for (BackendType b : test::availableBackends()) {
    std::vector<TracedOutput> t;
    PlacementReport traced;
    ASSERT_TRUE(test::traceGraphRun(b, x, &t, "", &traced).isOk());
    SessionOptions o;
    o.backends = {b};
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(test::traceGraph(), o, &s).isOk());
    std::map<std::string, Tensor> out;
    ASSERT_TRUE(s->run({{"x", x}}, &out).isOk());
    const PlacementReport& plain = s->report();
    ASSERT_EQ(traced.nodes.size(), plain.nodes.size());
    for (size_t i = 0; i < plain.nodes.size(); ++i) {
      EXPECT_EQ(traced.nodes[i].backend, plain.nodes[i].backend) << plain.nodes[i].node;
      EXPECT_EQ(traced.nodes[i].folded, plain.nodes[i].folded) << plain.nodes[i].node;
    }
    // The untraced plan's conversions come first, unchanged; tracing only adds read-backs.
    ASSERT_GE(traced.conversions.size(), plain.conversions.size());
    for (size_t i = 0; i < plain.conversions.size(); ++i) EXPECT_EQ(traced.conversions[i], plain.conversions[i]);
  }
}

TEST(Trace, FallbacksShowTheBackendThatRanTheNode) {
  // Trilu has no GPU kernel: on a GPU backend it runs on the CPU, and the trace says so.
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", DataType::kF32, {2, 3, 4}, true});
  Node relu, trilu;
  relu.name = "relu";
  relu.opType = "Relu";
  relu.inputs = {"x"};
  relu.outputs = {"r"};
  trilu.name = "trilu";
  trilu.opType = "Trilu";
  trilu.inputs = {"r"};
  trilu.outputs = {"t"};
  g->nodes = {relu, trilu};
  g->outputs.push_back({"t", DataType::kF32, {}, false});
  ASSERT_TRUE(g->validate().isOk());
  for (BackendType b : test::availableBackends()) {
    SessionOptions o;
    o.backends = {b};
    o.trace = true;
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(g, o, &s).isOk());
    std::map<std::string, Tensor> out;
    ASSERT_TRUE(s->run({{"x", test::randomTensor({2, 3, 4}, 5)}}, &out).isOk());
    std::vector<TracedOutput> t;
    ASSERT_TRUE(s->trace(&t).isOk());
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].backend, backendTypeName(s->report().nodes[0].backend));
    EXPECT_EQ(t[0].backend, backendTypeName(b)) << "Relu";
    EXPECT_EQ(t[1].backend, backendTypeName(s->report().nodes[1].backend));
    EXPECT_EQ(t[1].backend, "cpu") << "Trilu on " << backendTypeName(b);
    EXPECT_EQ(t[1].value.shape(), Shape({2, 3, 4}));
  }
}

TEST(Trace, IsAnErrorWhenOffOrBeforeARun) {
  SessionOptions o;
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(test::traceGraph(), o, &s).isOk());
  std::vector<TracedOutput> t;
  EXPECT_NE(s->trace(&t).message().find("tracing is off"), std::string::npos);
  o.trace = true;
  ASSERT_TRUE(Session::create(test::traceGraph(), o, &s).isOk());
  EXPECT_NE(s->trace(&t).message().find("nothing traced yet"), std::string::npos);
  ASSERT_TRUE(s->resize({{"x", {1, 2, 3, 4}}}).isOk());
  EXPECT_FALSE(s->trace(&t).isOk()) << "planned but not run: no values yet";
}

TEST(Divergence, PerturbedCpuKernelIsFound) {
  ASSERT_TRUE(test::registerTestKernel<CpuPerturbedRelu>(BackendType::kCPU, test::perturbedProvider(), "Relu"));
  test::expectPerturbedReluFound(BackendType::kCPU, test::randomTensor({2, 3, 5, 7}, 9));
}

// Hand-made traces: the culprit is the first value out of tolerance whose inputs are within;
// values downstream of it are out too but are not named; NaN against a number is out.
TEST(Divergence, NamesTheFirstValueWhoseInputsWereWithin) {
  auto entry = [](const std::string& out, std::vector<std::string> in, std::vector<float> v) {
    TracedOutput t;
    t.node = "Op '" + out + "'";
    t.output = out;
    t.inputs = std::move(in);
    t.value = test::tensorFrom({static_cast<int64_t>(v.size())}, v);
    return t;
  };
  // Tensors share their data when copied: each trace is built afresh.
  auto trace = [&] {
    return std::vector<TracedOutput>{entry("p", {"x"}, {1, 2}), entry("q", {"p"}, {3, 4}),
                                     entry("u", {"x"}, {5, 6}), entry("w", {"q", "u"}, {7, 8})};
  };
  const std::vector<TracedOutput> ref = trace();
  std::vector<TracedOutput> got = trace();
  got[1].value.data<float>()[1] = 4.5f;  // q is wrong...
  got[3].value.data<float>()[0] = 9.f;   // ...and so is w, downstream of it
  Divergence d = findDivergence(ref, got, 1e-3, 1e-5);
  ASSERT_EQ(d.first, 1);
  EXPECT_EQ(d.values[1].worst, 1);
  EXPECT_DOUBLE_EQ(d.values[1].maxAbsErr, 0.5);
  EXPECT_DOUBLE_EQ(d.values[1].reference, 4.0);
  EXPECT_DOUBLE_EQ(d.values[1].value, 4.5);
  EXPECT_FALSE(d.values[3].within);
  EXPECT_TRUE(d.values[0].within && d.values[2].within);

  got = trace();
  got[2].value.data<float>()[0] = NAN;
  d = findDivergence(ref, got, 1e-3, 1e-5);
  ASSERT_EQ(d.first, 2);
  EXPECT_TRUE(std::isinf(d.values[2].maxAbsErr));

  got = trace();
  got.push_back(entry("extra", {"w"}, {0}));  // not in the reference: not compared, no culprit
  d = findDivergence(ref, got, 1e-3, 1e-5);
  EXPECT_EQ(d.first, -1);
  EXPECT_FALSE(d.values[4].compared);
}

}  // namespace
}  // namespace tessera
