// The import-time graph passes against the unchanged graph: Conv + per-channel affine
// folding, HardSwish fusion and Constant nodes turned into initializers give the same
// outputs with fewer nodes, and leave alone what they must not touch.
#include <gtest/gtest.h>

#include "support/ConvSumCases.hpp"
#include "support/OpTest.hpp"
#include "tessera/Session.hpp"
#include "tools/onnx/ConstantsToInitializers.hpp"
#include "tools/onnx/FoldConvAffine.hpp"
#include "tools/onnx/FuseActivationAffine.hpp"
#include "tools/onnx/FuseConvActivation.hpp"
#include "tools/onnx/FuseConvGelu.hpp"
#include "tools/onnx/FuseConvSwish.hpp"
#include "tools/onnx/FuseConvAdd.hpp"
#include "tools/onnx/KnownShapes.hpp"
#include "tools/onnx/FuseHardSwish.hpp"
#include "tools/onnx/FuseLayerNorm.hpp"
#include "tools/onnx/FuseMatMulBias.hpp"
#include "tools/onnx/FuseMatMulScale.hpp"
#include "tools/onnx/FuseResidualScale.hpp"
#include "tools/onnx/FuseSqueezeExcite.hpp"
#include "tools/onnx/FuseTransposeMatMul.hpp"

namespace tessera {
namespace test {
namespace {

Tensor filled(const Shape& s, float v) {
  Tensor t = Tensor::hostAllocate(s, DataType::kF32);
  for (int64_t i = 0; i < t.elementCount(); ++i) t.data<float>()[i] = v;
  return t;
}

std::map<std::string, Tensor> runCpu(const Graph& g, const Tensor& x) {
  std::unique_ptr<Session> s;
  EXPECT_TRUE(Session::create(std::make_shared<Graph>(g), {}, &s).isOk());
  std::map<std::string, Tensor> out;
  Status st = s->run({{"x", x}}, &out);
  EXPECT_TRUE(st.isOk()) << st.message();
  return out;
}

// Runs `g` before and after `pass`; expects `nodesAfter` nodes and the same outputs.
template <typename Pass>
void expectSameAfter(const Graph& g, Pass pass, size_t nodesAfter, const std::string& what, double tol = 1e-5) {
  Graph changed = g;
  pass(&changed);
  EXPECT_EQ(changed.nodes.size(), nodesAfter) << what;
  ASSERT_TRUE(changed.validate().isOk()) << what;
  const Tensor x = randomTensor(Shape(g.inputs[0].dims.begin(), g.inputs[0].dims.end()), 5, -5.f, 5.f);
  auto a = runCpu(g, x), b = runCpu(changed, x);
  for (const auto& o : g.outputs) expectClose(b[o.name], a[o.name], tol, tol, what);
}

std::shared_ptr<Graph> build(GraphBuilder& g) {
  std::shared_ptr<Graph> graph;
  EXPECT_TRUE(g.build(&graph).isOk());
  return graph;
}

TEST(FoldConvAffine, PerChannelAndScalarConstantsFoldIntoWeightsAndBias) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {2, 3, 5, 6});
  const std::string w = g.constant("w", randomTensor({5, 3, 3, 3}, 1));
  const std::string b = g.constant("b", randomTensor({5}, 2));
  std::string y = g.op1("Conv", {"x", w, b});
  y = g.op1("Mul", {g.constant("s", randomTensor({1, 5, 1, 1}, 3)), y});
  y = g.op1("Add", {y, g.constant("a", randomTensor({5, 1, 1}, 4))});
  y = g.op1("Div", {y, g.constant("d", filled({1}, 4.f))});
  y = g.op1("Sub", {y, g.constant("e", randomTensor({5, 1, 1}, 6))});
  g.output(y);
  expectSameAfter(*build(g), foldConvAffine, 1, "conv affine chain");
}

// ConvTranspose (W [C, M/group, k, k]): a per-output-channel Add and a Sub fold into its bias,
// with and without groups; a Mul does not (it would scale W along its second axis).
TEST(FoldConvAffine, ConvTransposeBias) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {2, 4, 3, 5});
  Attributes up;
  up.setInts("strides", {2, 2});
  std::string y = g.op1("ConvTranspose", {"x", g.constant("w", randomTensor({4, 3, 2, 2}, 1))}, up);
  y = g.op1("Add", {y, g.constant("a", randomTensor({1, 3, 1, 1}, 2))});
  y = g.op1("Sub", {y, g.constant("b", randomTensor({1}, 3))});
  g.output(y);
  Attributes grouped = up;
  grouped.setInt("group", 2);
  std::string z = g.op1("ConvTranspose", {"x", g.constant("wg", randomTensor({4, 3, 2, 2}, 4)),
                                          g.constant("bg", randomTensor({6}, 5))}, grouped);
  z = g.op1("Add", {g.constant("c", randomTensor({6, 1, 1}, 6)), z});
  g.output(z);
  std::string s = g.op1("ConvTranspose", {"x", g.constant("ws", randomTensor({4, 3, 2, 2}, 7))}, up);
  g.output(g.op1("Mul", {s, g.constant("k", randomTensor({1, 3, 1, 1}, 8))}));
  expectSameAfter(*build(g), foldConvAffine, 4, "ConvTranspose bias");
}

TEST(FoldConvAffine, LeavesWhatDoesNotFold) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, 3, 5, 5});
  const std::string w = g.constant("w", randomTensor({4, 3, 1, 1}, 1));
  const std::string c1 = g.op1("Conv", {"x", w});
  const std::string sub = g.op1("Sub", {g.constant("k", randomTensor({4, 1, 1}, 2)), c1});  // constant first
  const std::string c2 = g.op1("Conv", {"x", w});
  const std::string alongW = g.op1("Mul", {c2, g.constant("v", randomTensor({5}, 3))});  // [5] lines up with W
  const std::string c3 = g.op1("Conv", {"x", w});
  const std::string twice = g.op1("Add", {c3, g.op1("Relu", {c3})});  // c3 read twice
  g.output(sub);
  g.output(alongW);
  g.output(twice);
  expectSameAfter(*build(g), foldConvAffine, 7, "nothing folds");
}

// x * Clip(x + 3, 0, 6) / 6, in the two spellings exporters use.
TEST(FuseHardSwish, BothSpellingsBecomeOneNode) {
  for (bool divide : {true, false}) {
    GraphBuilder g;
    g.input("x", DataType::kF32, {2, 5, 3, 4});
    const std::string a = g.op1("Add", {g.constant("three", filled({1}, 3.f)), "x"});
    const std::string c = g.op1("Clip", {a, g.constant("lo", filled({}, 0.f)), g.constant("hi", filled({}, 6.f))});
    const std::string m = g.op1("Mul", {c, "x"});
    const std::string y = divide ? g.op1("Div", {m, g.constant("six", filled({}, 6.f))})
                                 : g.op1("Mul", {g.constant("sixth", filled({}, 1.f / 6.f)), m});
    g.output(y);
    auto graph = build(g);
    expectSameAfter(*graph, fuseHardSwish, 1, divide ? "divide by 6" : "times 1/6");
    Graph fused = *graph;
    fuseHardSwish(&fused);
    EXPECT_EQ(fused.nodes[0].opType, "HardSwish");
    EXPECT_TRUE(fused.initializers.empty()) << "the pattern's constants should be dropped";
  }
}

TEST(FuseHardSwish, OtherConstantsOrSharedValuesAreLeftAlone) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, 4, 3, 3});
  const std::string a = g.op1("Add", {"x", g.constant("three", filled({1}, 3.f))});
  const std::string c = g.op1("Clip", {a, g.constant("lo", filled({}, 0.f)), g.constant("hi", filled({}, 5.f))});
  g.output(g.op1("Div", {g.op1("Mul", {"x", c}), g.constant("six", filled({}, 6.f))}));
  const std::string a2 = g.op1("Add", {"x", g.constant("three2", filled({1}, 3.f))});
  const std::string c2 = g.op1("Clip", {a2, g.constant("lo2", filled({}, 0.f)), g.constant("hi2", filled({}, 6.f))});
  g.output(c2);  // the clip is also a graph output: it must stay
  g.output(g.op1("Div", {g.op1("Mul", {"x", c2}), g.constant("six2", filled({}, 6.f))}));
  expectSameAfter(*build(g), fuseHardSwish, 8, "nothing fuses");
}

// Each activation after a Conv (regular with 6 output channels: a ragged last block; and
// depthwise) becomes the Conv's fused activation, with the CPU's answers unchanged.
TEST(FuseConvActivation, EveryKindGivesTheUnfusedAnswers) {
  struct Act { const char* op; Attributes attrs; std::vector<float> clip; };
  Attributes leaky, hsig;
  leaky.setFloat("alpha", 0.1f);
  hsig.setFloat("alpha", 0.25f);
  hsig.setFloat("beta", 0.4f);
  const Act acts[] = {{"Relu", {}, {}},        {"Clip", {}, {-0.5f, 0.75f}}, {"LeakyRelu", leaky, {}},
                      {"Sigmoid", {}, {}},     {"HardSigmoid", hsig, {}},     {"HardSwish", {}, {}}};
  for (const Act& act : acts)
    for (int64_t group : {int64_t(1), int64_t(5)}) {
      GraphBuilder g;
      g.input("x", DataType::kF32, {2, 5, 6, 7});
      const int64_t m = group == 1 ? 6 : 5;
      Attributes conv;
      conv.setInt("group", group);
      conv.setInts("pads", {1, 1, 1, 1});
      const std::string c = g.op1("Conv", {"x", g.constant("w", randomTensor({m, 5 / group, 3, 3}, 1)),
                                          g.constant("b", randomTensor({m}, 2))}, conv);
      std::vector<std::string> in = {c};
      if (!act.clip.empty()) {
        in.push_back(g.constant("lo", filled({}, act.clip[0])));
        in.push_back(g.constant("hi", filled({}, act.clip[1])));
      }
      g.output(g.op1(act.op, in, act.attrs));
      expectSameAfter(*build(g), fuseConvActivation, 1, std::string(act.op) + " group " + std::to_string(group));
    }
}

// The same after a ConvTranspose, on each of the CPU's paths: the 2x2 stride-2 upsampling
// kernel (NC4HW4 out, 6 channels: a ragged last block), the disjoint tiles (3 channels: NCHW
// out; with a 1x1 kernel at stride 2, outputs no tap reaches hold the bias, and activate it)
// and GEMM + col2im (3x3 at stride 2). Sigmoid and HardSigmoid are not 0 at 0.
TEST(FuseConvActivation, ConvTransposeEveryPathGivesTheUnfusedAnswers) {
  struct Path { const char* what; int64_t m, k; };
  const Path paths[] = {{"upsampling", 6, 2}, {"disjoint", 3, 2}, {"disjoint, uncovered", 3, 1}, {"col2im", 6, 3}};
  for (const char* act : {"Relu", "Sigmoid", "HardSigmoid", "HardSwish"})
    for (const Path& path : paths) {
      GraphBuilder g;
      g.input("x", DataType::kF32, {2, 5, 4, 7});
      Attributes ct;
      ct.setInts("strides", {2, 2});
      if (path.k == 3) ct.setInts("pads", {1, 1, 1, 1});
      const std::string y = g.op1("ConvTranspose", {"x", g.constant("w", randomTensor({5, path.m, path.k, path.k}, 1)),
                                                   g.constant("b", randomTensor({path.m}, 2))}, ct);
      g.output(g.op1(act, {y}));
      expectSameAfter(*build(g), fuseConvActivation, 1, std::string(act) + " after ConvTranspose, " + path.what);
    }
}

TEST(FuseConvActivation, LeavesSharedOutputsAndRunTimeBounds) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, 3, 4, 4});
  g.input("hi", DataType::kF32, {});
  const std::string w = g.constant("w", randomTensor({4, 3, 1, 1}, 1));
  const std::string c1 = g.op1("Conv", {"x", w});
  g.output(g.op1("Relu", {c1}));
  g.output(c1);  // the conv output is also a graph output
  const std::string c2 = g.op1("Conv", {"x", w});
  g.output(g.op1("Clip", {c2, "", "hi"}));  // a bound computed at run time
  Graph changed = *build(g);
  EXPECT_EQ(fuseConvActivation(&changed), 0);
}

// A Conv with a fused activation then scalar Mul (constant on either side) / Div / Add / Sub
// chains: the chain becomes the activation's scale and shift, with the CPU's answers
// unchanged, on the GEMM (6 channels: a ragged last block, so padding lanes are rewritten)
// and depthwise kernels. A Concat after it reads the padding lanes of the packed output.
TEST(FuseActivationAffine, ScalarChainsAfterTheActivationFoldIntoTheConv) {
  struct Link { const char* op; float k; bool constFirst; };
  const std::vector<std::vector<Link>> chains = {
      {{"Mul", 0.75f, true}, {"Add", -0.3f, false}},  // PP-LCNet's learnable affine
      {{"Div", 4.f, false}, {"Sub", 0.5f, false}, {"Mul", -2.f, false}},
      {{"Add", 1.25f, true}}};
  for (const char* act : {"HardSwish", "Sigmoid", "Relu"})
    for (int64_t group : {int64_t(1), int64_t(5)})
      for (size_t ci = 0; ci < chains.size(); ++ci) {
        GraphBuilder g;
        g.input("x", DataType::kF32, {2, 5, 6, 7});
        const int64_t m = group == 1 ? 6 : 5;
        Attributes conv;
        conv.setInt("group", group);
        conv.setInts("pads", {1, 1, 1, 1});
        std::string y = g.op1("Conv", {"x", g.constant("w", randomTensor({m, 5 / group, 3, 3}, 1)),
                                      g.constant("b", randomTensor({m}, 2))}, conv);
        y = g.op1(act, {y});
        int i = 0;
        for (const Link& l : chains[ci]) {
          const std::string k = g.constant("k" + std::to_string(i++), filled({1}, l.k));
          y = g.op1(l.op, l.constFirst ? std::vector<std::string>{k, y} : std::vector<std::string>{y, k});
        }
        Attributes axis;
        axis.setInt("axis", 1);
        g.output(g.op1("Concat", {y, "x"}, axis));
        const std::string what = std::string(act) + " group " + std::to_string(group) + " chain " + std::to_string(ci);
        expectSameAfter(*build(g), [](Graph* graph) {
          fuseConvActivation(graph);
          EXPECT_GT(fuseActivationAffine(graph), 0);
        }, 2, what);
      }
}

TEST(FuseActivationAffine, LeavesWhatIsNotAScalarAffineOfTheActivation) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, 3, 4, 4});
  const std::string w = g.constant("w", randomTensor({4, 3, 1, 1}, 1));
  Attributes relu;
  relu.setString("activation", "Relu");
  const std::string half = g.constant("half", filled({}, 0.5f));
  const std::string c1 = g.op1("Conv", {"x", w}, relu);
  g.output(g.op1("Mul", {c1, half}));
  g.output(c1);  // the conv output is also read elsewhere
  g.output(g.op1("Sub", {half, g.op1("Conv", {"x", w}, relu)}));  // constant - x
  g.output(g.op1("Div", {half, g.op1("Conv", {"x", w}, relu)}));  // constant / x
  g.output(g.op1("Mul", {g.op1("Conv", {"x", w}, relu), g.constant("perChannel", randomTensor({1, 4, 1, 1}, 3))}));
  g.output(g.op1("Add", {g.op1("Conv", {"x", w}, relu), g.constant("rank5", filled({1, 1, 1, 1, 1}, 2.f))}));
  g.output(g.op1("Add", {g.op1("Conv", {"x", w}), half}));  // no activation: FoldConvAffine's job
  Graph changed = *build(g);
  EXPECT_EQ(fuseActivationAffine(&changed), 0);
}

// Conv `c` of x, with bias (or without), and a tensor z of its output's shape (a sigmoid of
// another conv of x, so neither is a constant).
std::pair<std::string, std::string> convAndSum(GraphBuilder& g, const ConvSumCase& c, bool bias, uint32_t seed) {
  Attributes conv;
  conv.setInt("group", c.group);
  conv.setInts("strides", c.strides);
  conv.setInts("pads", c.pads);
  Shape w = {c.m, c.x[1] / c.group}, wz = {c.m, c.x[1]};
  w.insert(w.end(), c.kernel.begin(), c.kernel.end());
  wz.insert(wz.end(), c.kernel.begin(), c.kernel.end());
  std::vector<std::string> in = {"x", g.constant("w", randomTensor(w, seed))};
  if (bias) in.push_back(g.constant("b", randomTensor({c.m}, seed + 1)));
  const std::string y = g.op1("Conv", in, conv);
  conv.setInt("group", 1);
  const std::string z = g.op1("Sigmoid", {g.op1("Conv", {"x", g.constant("wz", randomTensor(wz, seed + 2))}, conv)});
  return {y, z};
}

// Conv -> Add -> activation (none and each kind) become one Conv with Z and the activation,
// with the CPU's answers unchanged on every Conv kernel (support/ConvSumCases.hpp). The Add
// takes the Conv's output on either side.
TEST(FuseConvAdd, SumsBeforeTheActivationGiveTheUnfusedAnswers) {
  struct Act { const char* op; Attributes attrs; std::vector<float> clip; };
  Attributes leaky, hsig;
  leaky.setFloat("alpha", 0.1f);
  hsig.setFloat("alpha", 0.25f);
  hsig.setFloat("beta", 0.4f);
  const Act acts[] = {{"", {}, {}},      {"Relu", {}, {}},        {"Clip", {}, {-0.5f, 0.75f}},
                      {"LeakyRelu", leaky, {}}, {"Sigmoid", {}, {}}, {"HardSigmoid", hsig, {}},
                      {"HardSwish", {}, {}}};
  uint32_t seed = 1;
  for (const ConvSumCase& c : convSumCases())
    for (const Act& act : acts) {
      const bool bias = seed % 3 != 0, convFirst = seed % 2 == 0;
      GraphBuilder g;
      g.input("x", DataType::kF32, std::vector<int64_t>(c.x.begin(), c.x.end()));
      // Named copies, not a structured binding: C++17 lambdas cannot capture those (clang).
      const auto sum = convAndSum(g, c, bias, seed += 3);
      const std::string y = sum.first, z = sum.second;
      std::vector<std::string> in = {g.op1("Add", convFirst ? std::vector<std::string>{y, z}
                                                           : std::vector<std::string>{z, y})};
      if (!act.clip.empty()) {
        in.push_back(g.constant("lo", filled({}, act.clip[0])));
        in.push_back(g.constant("hi", filled({}, act.clip[1])));
      }
      g.output(*act.op ? g.op1(act.op, in, act.attrs) : in[0]);
      const std::string what = std::string(c.what) + " " + (*act.op ? act.op : "no activation") +
                               (bias ? "" : " no bias");
      expectSameAfter(*build(g), [&](Graph* graph) {
        EXPECT_EQ(fuseConvAdd(graph), 1) << what;
        EXPECT_EQ(fuseConvActivation(graph), *act.op ? 2 : 1) << what;  // z's Sigmoid too
        const Node& fused = graph->nodes.back();
        EXPECT_EQ(fused.inputs.size(), 4u) << what;
        EXPECT_EQ(fused.inputs[3], z) << what;
      }, 2, what);
    }
}

TEST(FuseConvAdd, LeavesSharedOutputsBroadcastsUnknownShapesAndFusedActivations) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, 3, 4, 4});
  const std::string w = g.constant("w", randomTensor({3, 3, 1, 1}, 1));
  const std::string c1 = g.op1("Conv", {"x", w});
  g.output(g.op1("Add", {c1, "x"}));
  g.output(g.op1("Relu", {c1}));  // a second consumer
  const std::string c2 = g.op1("Conv", {"x", w});
  g.output(g.op1("Add", {c2, "x"}));
  g.output(c2);  // the conv output is also a graph output
  g.output(g.op1("Add", {g.op1("Conv", {"x", w}), g.constant("perChannel", randomTensor({1, 3, 1, 1}, 2))}));
  Attributes relu;
  relu.setString("activation", "Relu");
  g.output(g.op1("Add", {g.op1("Conv", {"x", w}, relu), "x"}));  // the activation would come first
  Graph changed = *build(g);
  EXPECT_EQ(fuseConvAdd(&changed), 0);

  // Dynamic sizes: Y and Z whose shapes differ for some input sizes where the Add would still
  // work (x with H and W swapped, the same only when square; a mean over H broadcasts) stay an
  // Add. A stride-2 conv upsampled 2x matches x at sizes the stride divides and cannot be added
  // to it at others (neither dim 1), so the graph fails there fused or not: that one fuses.
  GraphBuilder dynamic;
  dynamic.input("x", DataType::kF32, {-1, 3, -1, -1});
  const std::string wd = dynamic.constant("w", randomTensor({3, 3, 3, 3}, 1));
  Attributes stride2;
  stride2.setInts("strides", {2, 2});
  stride2.setInts("pads", {1, 1, 1, 1});
  Attributes nearest;
  nearest.setString("mode", "nearest");
  const std::string up = dynamic.op1(
      "Resize", {dynamic.op1("Conv", {"x", wd}, stride2), "", dynamic.constant("scales", [] {
                   Tensor t = Tensor::hostAllocate({4}, DataType::kF32);
                   const float v[4] = {1.f, 1.f, 2.f, 2.f};
                   std::copy(v, v + 4, t.data<float>());
                   return t;
                 }())},
      nearest);
  const std::string upConv = dynamic.op1("Conv", {up, dynamic.constant("w1", randomTensor({3, 3, 1, 1}, 2))});
  dynamic.output(dynamic.op1("Add", {upConv, "x"}));
  Attributes meanOverH;
  meanOverH.setInts("axes", {2});
  // H and W swapped: the same shape only for square inputs.
  Attributes swapHW;
  swapHW.setInts("perm", {0, 1, 3, 2});
  dynamic.output(dynamic.op1("Add", {dynamic.op1("Conv", {"x", dynamic.constant("w3", randomTensor({3, 3, 1, 1}, 4))}),
                                     dynamic.op1("Transpose", {"x"}, swapHW)}));
  const std::string mean = dynamic.op1("ReduceMean", {"x"}, meanOverH);
  dynamic.output(dynamic.op1("Add", {dynamic.op1("Conv", {"x", dynamic.constant("w2", randomTensor({3, 3, 1, 1}, 3))}),
                                     mean}));
  changed = *build(dynamic);
  // The shapes are worked out, not unknown: at an even size the upsampled path matches x.
  const auto even = pass::knownShapes(changed, 90), odd = pass::knownShapes(changed, 67);
  ASSERT_TRUE(even.count(upConv) && odd.count(upConv));
  EXPECT_EQ(even.at(upConv), even.at("x"));
  EXPECT_NE(odd.at(upConv), odd.at("x"));
  ASSERT_TRUE(even.count(mean));
  EXPECT_EQ(even.at(mean), (Shape{90, 3, 1, 102}));  // broadcasts against the conv's output
  const Graph unfused = changed;
  EXPECT_EQ(fuseConvAdd(&changed), 1);
  int withZ = 0;
  for (const Node& n : changed.nodes) withZ += n.opType == "Conv" && n.inputs.size() == 4 && n.inputs[3] == "x";
  EXPECT_EQ(withZ, 1);
  // Same answers where the sizes fit, an error in both where they do not.
  for (const Shape& s : {Shape{1, 3, 6, 6}, Shape{2, 3, 7, 7}}) {  // square: the transposed sum works
    std::unique_ptr<Session> a, b;
    ASSERT_TRUE(Session::create(std::make_shared<Graph>(unfused), {}, &a).isOk());
    ASSERT_TRUE(Session::create(std::make_shared<Graph>(changed), {}, &b).isOk());
    const Tensor x = randomTensor(s, 3);
    std::map<std::string, Tensor> outA, outB;
    const Status stA = a->run({{"x", x}}, &outA), stB = b->run({{"x", x}}, &outB);
    const std::string what = shapeToString(s);
    if (s[2] % 2 == 0) {
      ASSERT_TRUE(stA.isOk() && stB.isOk()) << what << ": " << stA.message() << " / " << stB.message();
      for (const auto& kv : outA) expectClose(outB[kv.first], kv.second, 1e-5, 1e-5, what + " " + kv.first);
    } else {
      EXPECT_FALSE(stA.isOk()) << what;
      EXPECT_FALSE(stB.isOk()) << what;
    }
  }
}

// Dynamic sizes whose Y and Z agree at every size (a residual block of convs that keep the
// size): fused, as with every dim given.
TEST(FuseConvAdd, FusesResidualBlocksOfDynamicSize) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {-1, 3, -1, -1});
  Attributes same;
  same.setInts("pads", {1, 1, 1, 1});
  const std::string h = g.op1("Conv", {"x", g.constant("w", randomTensor({3, 3, 3, 3}, 1))}, same);
  g.output(g.op1("Add", {"x", g.op1("Conv", {h, g.constant("w1", randomTensor({3, 3, 1, 1}, 2))})}));
  Graph changed = *build(g);
  EXPECT_EQ(fuseConvAdd(&changed), 1);
  EXPECT_EQ(changed.nodes.back().opType, "Conv");
  ASSERT_EQ(changed.nodes.back().inputs.size(), 4u);
  EXPECT_EQ(changed.nodes.back().inputs[3], "x");
}

// A transformer's residual sums: h + MatMul(h, W) (+ bias, from FuseMatMulBias) becomes the
// MatMul's Z, the product on either side of the Add, an activation after the sum fused after
// it; a broadcast operand ([N]: FuseMatMulBias's, not Z) and a MatMul with its activation
// already fused stay.
TEST(FuseConvAdd, MatMulResidualSumsBecomeItsZ) {
  for (int variant = 0; variant < 4; ++variant) {
    const bool bias = variant % 2 == 1, productFirst = variant < 2;
    GraphBuilder g;
    g.input("x", DataType::kF32, {2, 5, 6});
    std::string y = g.op1("MatMul", {"x", g.constant("w", randomTensor({6, 6}, 1))});
    if (bias) y = g.op1("Add", {y, g.constant("b", randomTensor({6}, 2))});
    const std::string sum = g.op1("Add", productFirst ? std::vector<std::string>{y, "x"} : std::vector<std::string>{"x", y});
    g.output(g.op1("Relu", {sum}));
    const std::string what = std::string(bias ? "with" : "without") + " a bias, product " +
                             (productFirst ? "first" : "second");
    expectSameAfter(*build(g), [&](Graph* graph) {
      EXPECT_EQ(fuseMatMulBias(graph), bias ? 1 : 0) << what;
      EXPECT_EQ(fuseConvAdd(graph), 1) << what;
      EXPECT_EQ(fuseConvActivation(graph), 1) << what;
      const Node& fused = graph->nodes.back();
      EXPECT_EQ(fused.opType, "MatMul") << what;
      ASSERT_EQ(fused.inputs.size(), 4u) << what;
      EXPECT_EQ(fused.inputs[2].empty(), !bias) << what;
      EXPECT_EQ(fused.inputs[3], "x") << what;
      EXPECT_EQ(fused.attrs.getString("activation", ""), "Relu") << what;
    }, 1, what);
  }
  GraphBuilder g;
  g.input("x", DataType::kF32, {5, 6});
  const std::string w = g.constant("w", randomTensor({6, 6}, 1));
  g.output(g.op1("Add", {g.op1("MatMul", {"x", w}), g.constant("row", randomTensor({6}, 2))}));  // broadcasts
  Attributes relu;
  relu.setString("activation", "Relu");
  g.output(g.op1("Add", {g.op1("MatMul", {"x", w}, relu), "x"}));  // act(product) + x is not act(product + x)
  Graph changed = *build(g);
  EXPECT_EQ(fuseConvAdd(&changed), 0);
}

// PP-OCRv4 rec's attention output: the projection's A is a Reshape whose target is computed
// from the input's Shape (Shape, Slice, Concat), so the sum's operands have one shape only
// once those small values are computed at import (KnownShapes); the input's length dynamic.
TEST(FuseConvAdd, MatMulSumsFuseWhenAReshapeTargetIsComputedFromTheInputsShape) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, -1, 6});
  const std::string length = g.op1("Slice", {g.op1("Shape", {"x"}), g.constant("s0", tensorFromInts({1}, {1})),
                                             g.constant("s1", tensorFromInts({1}, {2}))});
  Attributes axis0;
  axis0.setInt("axis", 0);
  const std::string target = g.op1("Concat", {g.constant("one", tensorFromInts({1}, {1})), length,
                                              g.constant("six", tensorFromInts({1}, {6}))}, axis0);
  const std::string flat = g.op1("Reshape", {g.op1("Relu", {"x"}), g.constant("flat", tensorFromInts({2}, {-1, 6}))});
  const std::string a = g.op1("Reshape", {flat, target});
  g.output(g.op1("Add", {"x", g.op1("MatMul", {a, g.constant("w", randomTensor({6, 6}, 1))})}));
  const std::shared_ptr<Graph> unfused = build(g);
  Graph fused = *unfused;
  EXPECT_EQ(fuseConvAdd(&fused), 1);
  EXPECT_EQ(fused.nodes.back().opType, "MatMul");
  for (int64_t length : {5, 9}) {
    const Tensor x = randomTensor({1, length, 6}, static_cast<uint32_t>(length), -5.f, 5.f);
    std::map<std::string, Tensor> before = runCpu(*unfused, x), after = runCpu(fused, x);
    expectClose(after.begin()->second, before.begin()->second, 1e-5, 1e-5, "length " + std::to_string(length));
  }
}

// x + x * s with s a fused-activation Conv (PP-OCRv4 det's RSE block: s = HardSigmoid(Conv(
// Relu(Conv(GlobalAveragePool(x)))))) becomes x * (s + 1), operands in either order, with and
// without an affine already after the activation.
TEST(FuseResidualScale, ResidualScaleBlocksBecomeOneMul) {
  for (int variant = 0; variant < 4; ++variant) {
    GraphBuilder g;
    g.input("x", DataType::kF32, {2, 6, 5, 7});
    const std::string c = g.op1("Conv", {"x", g.constant("w", randomTensor({6, 6, 3, 3}, 1))}, [] {
      Attributes a;
      a.setInts("pads", {1, 1, 1, 1});
      return a;
    }());
    const std::string squeezed = g.op1("Relu", {g.op1("Conv", {g.op1("GlobalAveragePool", {c}),
                                                               g.constant("w1", randomTensor({3, 6, 1, 1}, 2))})});
    Attributes hsig;
    hsig.setFloat("alpha", 0.2f);
    hsig.setFloat("beta", 0.5f);
    std::string s = g.op1("HardSigmoid", {g.op1("Conv", {squeezed, g.constant("w2", randomTensor({6, 3, 1, 1}, 3)),
                                                         g.constant("b2", randomTensor({6}, 4))})}, hsig);
    if (variant == 3) s = g.op1("Mul", {s, g.constant("k", filled({1}, 0.5f))});  // an affine after it
    const std::string mul = g.op1("Mul", variant % 2 ? std::vector<std::string>{s, c} : std::vector<std::string>{c, s});
    g.output(g.op1("Add", variant >= 2 ? std::vector<std::string>{mul, c} : std::vector<std::string>{c, mul}));
    expectSameAfter(*build(g), [&](Graph* graph) {
      fuseConvActivation(graph);
      fuseActivationAffine(graph);
      EXPECT_EQ(fuseResidualScale(graph), 1) << variant;
    }, 5, "variant " + std::to_string(variant));  // Conv, GlobalAveragePool, Conv, Conv, Mul
  }
}

TEST(FuseResidualScale, LeavesSharedValuesAndScalesWithoutAFusedActivation) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, 3, 4, 4});
  const std::string w = g.constant("w", randomTensor({3, 3, 1, 1}, 1));
  Attributes sig;
  sig.setString("activation", "Sigmoid");
  const std::string s1 = g.op1("Conv", {"x", w}, sig);
  const std::string m1 = g.op1("Mul", {"x", s1});
  g.output(g.op1("Add", {"x", m1}));
  g.output(m1);  // the product is read elsewhere
  const std::string s2 = g.op1("Conv", {"x", w}, sig);
  g.output(g.op1("Add", {"x", g.op1("Mul", {"x", s2})}));
  g.output(s2);  // the scale is read elsewhere
  g.output(g.op1("Add", {"x", g.op1("Mul", {"x", g.op1("Conv", {"x", w})})}));  // no activation to shift
  g.output(g.op1("Add", {"x", g.op1("Mul", {g.op1("Relu", {"x"}), g.op1("Conv", {"x", w}, sig)})}));  // x * s + y
  Graph changed = *build(g);
  EXPECT_EQ(fuseResidualScale(&changed), 0);
}

// Swish after a Conv, c * Sigmoid(c) or c * Sigmoid(c * k), becomes its fused activation on
// every CPU Conv kernel (convSumCases: GEMM, Winograd, few-channel, depthwise, groups, 1-D).
TEST(FuseConvSwish, SwishAfterEveryConvKernelGivesTheUnfusedAnswers) {
  int variant = 0;
  for (const ConvSumCase& c : convSumCases()) {
    const int v = variant++;
    GraphBuilder g;
    g.input("x", DataType::kF32, std::vector<int64_t>(c.x.begin(), c.x.end()));
    const std::string conv = g.op1("Conv", {"x", g.constant("w", randomTensor(convSumWeightShape(c), 11)),
                                            g.constant("b", randomTensor({c.m}, 12))}, convSumAttributes(c));
    const float k = v % 3 == 0 ? 1.f : v % 3 == 1 ? 0.7f : -1.3f;
    std::string arg = conv;
    if (v % 4 != 3) {  // every fourth spells Sigmoid(c) without the scale
      const std::string kName = g.constant("k", filled({}, k));
      arg = g.op1("Mul", v % 2 ? std::vector<std::string>{kName, conv} : std::vector<std::string>{conv, kName});
    }
    const std::string s = g.op1("Sigmoid", {arg});
    g.output(g.op1("Mul", v % 3 ? std::vector<std::string>{s, conv} : std::vector<std::string>{conv, s}));
    expectSameAfter(*build(g), [&](Graph* graph) {
      EXPECT_EQ(fuseConvSwish(graph), 1) << c.what;
      EXPECT_EQ(graph->nodes[0].attrs.getString("activation", ""), "Swish") << c.what;
      EXPECT_EQ(graph->initializers.count("k"), 0u) << c.what << ": k is gone";
    }, 1, std::string(c.what) + " variant " + std::to_string(v), 2e-5);
  }
}

// A transformer MLP's MatMul (with its bias, from FuseMatMulBias) -> x * Sigmoid(1.702 x), and
// MatMul -> Relu: the activation becomes the MatMul's.
TEST(FuseConvSwish, SwishAndReluAfterAMatMul) {
  for (int relu = 0; relu < 2; ++relu) {
    GraphBuilder g;
    g.input("x", DataType::kF32, {2, 5, 7});
    const std::string mm = g.op1("Add", {g.op1("MatMul", {"x", g.constant("w", randomTensor({7, 6}, 1))}),
                                         g.constant("b", randomTensor({6}, 2))});
    if (relu) {
      g.output(g.op1("Relu", {mm}));
    } else {
      const std::string s = g.op1("Sigmoid", {g.op1("Mul", {mm, g.constant("k", filled({}, 1.702f))})});
      g.output(g.op1("Mul", {mm, s}));
    }
    expectSameAfter(*build(g), [&](Graph* graph) {
      EXPECT_EQ(fuseMatMulBias(graph), 1);
      EXPECT_EQ(relu ? fuseConvActivation(graph) : fuseConvSwish(graph), 1);
      EXPECT_EQ(graph->nodes[0].attrs.getString("activation", ""), relu ? "Relu" : "Swish");
    }, 1, relu ? "MatMul -> Relu" : "MatMul -> Swish");
  }
}

// GELU as PyTorch writes it before opset 20, after a MatMul with its bias and after a Conv:
// x / sqrt 2 or x * (1 / sqrt 2), then (x (1 + erf)) * 0.5 or (x * 0.5) (1 + erf), operands
// in either order; it becomes the producer's fused activation Gelu.
TEST(FuseConvGelu, EveryWrittenFormAfterAMatMulOrAConv) {
  for (int form = 0; form < 4; ++form) {
    for (int conv = 0; conv < 2; ++conv) {
      GraphBuilder g;
      std::string x;
      if (conv) {
        g.input("x", DataType::kF32, {2, 5, 6, 7});
        Attributes same;
        same.setInts("pads", {1, 1, 1, 1});
        x = g.op1("Conv", {"x", g.constant("w", randomTensor({4, 5, 3, 3}, 1)), g.constant("b", randomTensor({4}, 2))},
                  same);
      } else {
        g.input("x", DataType::kF32, {2, 5, 7});
        x = g.op1("Add", {g.op1("MatMul", {"x", g.constant("w", randomTensor({7, 6}, 1))}),
                          g.constant("b", randomTensor({6}, 2))});
      }
      const std::string scaled =
          form % 2 ? g.op1("Mul", {g.constant("r", filled({}, 0.70710678f)), x})
                   : g.op1("Div", {x, g.constant("s", filled({}, 1.41421356f))});
      const std::string onePlus = g.op1("Add", {form < 2 ? g.op1("Erf", {scaled}) : g.constant("one", filled({}, 1.f)),
                                                form < 2 ? g.constant("one", filled({}, 1.f)) : g.op1("Erf", {scaled})});
      const std::string half = g.constant("half", filled({}, 0.5f));
      if (form < 2)
        g.output(g.op1("Mul", {g.op1("Mul", {x, onePlus}), half}));
      else
        g.output(g.op1("Mul", {onePlus, g.op1("Mul", {half, x})}));
      const std::string what = std::string(conv ? "Conv" : "MatMul") + " form " + std::to_string(form);
      expectSameAfter(*build(g), [&](Graph* graph) {
        if (!conv) EXPECT_EQ(fuseMatMulBias(graph), 1) << what;
        EXPECT_EQ(fuseConvGelu(graph), 1) << what;
        EXPECT_EQ(graph->nodes[0].attrs.getString("activation", ""), "Gelu") << what;
        EXPECT_EQ(graph->initializers.count("half"), 0u) << what << ": the constants are gone";
      }, 1, what);
    }
  }
}

// GELU's tanh form as GPT-2's and BERT's Hugging Face exports (gelu_new) and PyTorch's
// gelu(approximate="tanh") write it: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the cube
// as Pow(x, 3) or x * (x * x), operands in either order, the half before or after; it becomes
// the MatMul's fused activation GeluTanh. A chain with another cubic coefficient, or whose x
// is read elsewhere, stays.
TEST(FuseConvGelu, TanhFormAfterAMatMul) {
  for (int form = 0; form < 4; ++form) {
    GraphBuilder g;
    g.input("x", DataType::kF32, {2, 5, 7});
    const std::string x = g.op1("Add", {g.op1("MatMul", {"x", g.constant("w", randomTensor({7, 6}, 1))}),
                                        g.constant("b", randomTensor({6}, 2))});
    const std::string cube = form % 2 ? g.op1("Mul", {x, g.op1("Mul", {x, x})})
                                      : g.op1("Pow", {x, g.constant("three", filled({}, 3.f))});
    const std::string k = g.constant("k", filled({}, 0.044715f));
    const std::string sum = form < 2 ? g.op1("Add", {x, g.op1("Mul", {cube, k})}) : g.op1("Add", {g.op1("Mul", {k, cube}), x});
    const std::string t = g.op1("Tanh", {g.op1("Mul", {g.constant("c", filled({}, 0.7978845608f)), sum})});
    const std::string onePlus = g.op1("Add", {g.constant("one", filled({}, 1.f)), t});
    const std::string half = g.constant("half", filled({}, 0.5f));
    if (form < 2)
      g.output(g.op1("Mul", {g.op1("Mul", {half, x}), onePlus}));
    else
      g.output(g.op1("Mul", {g.op1("Mul", {x, onePlus}), half}));
    const std::string what = "tanh form " + std::to_string(form);
    expectSameAfter(*build(g), [&](Graph* graph) {
      EXPECT_EQ(fuseMatMulBias(graph), 1) << what;
      EXPECT_EQ(fuseConvGelu(graph), 1) << what;
      ASSERT_EQ(graph->nodes.size(), 1u) << what;
      EXPECT_EQ(graph->nodes[0].attrs.getString("activation", ""), "GeluTanh") << what;
    }, 1, what);
  }
  for (int bad = 0; bad < 2; ++bad) {
    GraphBuilder g;
    g.input("x", DataType::kF32, {2, 5, 7});
    const std::string x = g.op1("MatMul", {"x", g.constant("w", randomTensor({7, 6}, 1))});
    const std::string cube = g.op1("Pow", {x, g.constant("three", filled({}, 3.f))});
    const std::string sum = g.op1("Add", {x, g.op1("Mul", {cube, g.constant("k", filled({}, bad ? 0.044715f : 0.05f))})});
    const std::string t = g.op1("Tanh", {g.op1("Mul", {sum, g.constant("c", filled({}, 0.7978845608f))})});
    g.output(g.op1("Mul", {g.op1("Mul", {x, g.op1("Add", {t, g.constant("one", filled({}, 1.f))})}),
                           g.constant("half", filled({}, 0.5f))}));
    if (bad) g.output(x);  // x read elsewhere
    const auto graph = build(g);
    EXPECT_EQ(fuseConvGelu(graph.get()), 0) << (bad ? "x shared" : "0.05 x^3");
  }
}

TEST(FuseConvGelu, LeavesSharedValuesOtherConstantsAndFusedActivations) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, 3, 4, 4});
  const std::string w = g.constant("w", randomTensor({3, 3, 1, 1}, 1));
  int chains = 0;
  auto gelu = [&](const std::string& x, float root2, float one, float half) {
    const std::string k = std::to_string(chains++);  // constants of their own
    const std::string e = g.op1("Erf", {g.op1("Div", {x, g.constant("s" + k, filled({}, root2))})});
    return g.op1("Mul", {g.op1("Mul", {x, g.op1("Add", {e, g.constant("one" + k, filled({}, one))})}),
                         g.constant("h" + k, filled({}, half))});
  };
  const std::string c1 = g.op1("Conv", {"x", w});
  g.output(gelu(c1, 1.41421356f, 1.f, 0.5f));
  g.output(c1);  // x read elsewhere
  g.output(gelu(g.op1("Conv", {"x", w}), 2.f, 1.f, 0.5f));  // not sqrt 2
  g.output(gelu(g.op1("Conv", {"x", w}), 1.41421356f, 2.f, 0.5f));  // 2 + erf
  g.output(gelu(g.op1("Conv", {"x", w}), 1.41421356f, 1.f, 0.25f));  // a quarter
  g.output(gelu(g.op1("Relu", {"x"}), 1.41421356f, 1.f, 0.5f));  // no producer to fuse into
  Attributes relu;
  relu.setString("activation", "Relu");
  g.output(gelu(g.op1("Conv", {"x", w}, relu), 1.41421356f, 1.f, 0.5f));  // an activation already
  Graph changed = *build(g);
  EXPECT_EQ(fuseConvGelu(&changed), 0);
}

TEST(FuseConvSwish, LeavesSharedValuesOtherScalesAndFusedActivations) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, 3, 4, 4});
  const std::string w = g.constant("w", randomTensor({3, 3, 1, 1}, 1));
  const std::string c1 = g.op1("Conv", {"x", w});
  g.output(g.op1("Mul", {c1, g.op1("Sigmoid", {c1})}));
  g.output(c1);  // c read elsewhere
  const std::string c2 = g.op1("Conv", {"x", w});
  const std::string s2 = g.op1("Sigmoid", {c2});
  g.output(g.op1("Mul", {c2, s2}));
  g.output(s2);  // the sigmoid read elsewhere
  const std::string c3 = g.op1("Conv", {"x", w});
  g.output(g.op1("Mul", {c3, g.op1("Sigmoid", {g.op1("Mul", {c3, g.constant("k3", randomTensor({3, 1, 1}, 4))})})}));
  Attributes relu;
  relu.setString("activation", "Relu");
  const std::string c4 = g.op1("Conv", {"x", w}, relu);  // an activation already
  g.output(g.op1("Mul", {c4, g.op1("Sigmoid", {c4})}));
  const std::string r = g.op1("Relu", {"x"});  // not a Conv
  g.output(g.op1("Mul", {r, g.op1("Sigmoid", {r})}));
  Graph changed = *build(g);
  EXPECT_EQ(fuseConvSwish(&changed), 0);
}

// MatMul + constant vector: the bias becomes MatMul's third input (3-D A, batched B, 1-D A,
// bias [N] or [1, N], on either side of the Add).
TEST(FuseMatMulBias, LinearLayersBecomeOneMatMul) {
  struct Case { Shape a, b, bias; bool biasFirst; };
  const Case cases[] = {{{2, 5, 7}, {7, 6}, {6}, false},      {{2, 5, 7}, {7, 6}, {6}, true},
                        {{3, 5, 7}, {3, 7, 9}, {1, 9}, false}, {{7}, {7, 3}, {3}, true},
                        {{40, 120}, {120, 360}, {360}, false}};
  for (const Case& c : cases) {
    GraphBuilder g;
    g.input("x", DataType::kF32, std::vector<int64_t>(c.a.begin(), c.a.end()));
    const std::string y = g.op1("MatMul", {"x", g.constant("w", randomTensor(c.b, 1))});
    const std::string bias = g.constant("bias", randomTensor(c.bias, 2));
    g.output(g.op1("Add", c.biasFirst ? std::vector<std::string>{bias, y} : std::vector<std::string>{y, bias}));
    const std::string what = shapeToString(c.a) + " x " + shapeToString(c.b) + " + " + shapeToString(c.bias);
    std::shared_ptr<Graph> unfused = build(g);
    expectSameAfter(*unfused, [&](Graph* graph) {
      EXPECT_EQ(fuseMatMulBias(graph), 1) << what;
      EXPECT_EQ(graph->nodes[0].inputs.size(), 3u) << what;
      EXPECT_EQ(graph->initializers.count("bias"), 0u) << what << ": the Add's constant is gone";
    }, 1, what);
    // Two threads: a single product is split over the pool, then the bias added by rows.
    Graph fused = *unfused;
    fuseMatMulBias(&fused);
    SessionOptions two;
    two.threads = 2;
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(std::make_shared<Graph>(fused), two, &s).isOk());
    const Tensor x = randomTensor(c.a, 5, -5.f, 5.f);
    std::map<std::string, Tensor> out;
    ASSERT_TRUE(s->run({{"x", x}}, &out).isOk()) << what;
    expectClose(out.begin()->second, runCpu(*unfused, x).begin()->second, 1e-5, 1e-5, what + ", 2 threads");
  }
}

TEST(FuseMatMulBias, LeavesRowBiasesComputedWeightsSharedProductsAndBroadcasts) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {5, 7});
  const std::string w = g.constant("w", randomTensor({7, 6}, 1));
  g.output(g.op1("Add", {g.op1("MatMul", {"x", w}), g.constant("rows", randomTensor({5, 6}, 2))}));  // per row
  g.output(g.op1("Add", {g.op1("MatMul", {"x", g.op1("Relu", {w})}), g.constant("b1", randomTensor({6}, 3))}));
  const std::string shared = g.op1("MatMul", {"x", w});
  g.output(g.op1("Add", {shared, g.constant("b2", randomTensor({6}, 4))}));
  g.output(shared);  // the product read elsewhere
  g.output(g.op1("Add", {g.op1("MatMul", {g.op1("ReduceSum", {"x"}), w}), g.constant("b3", randomTensor({1, 6}, 5))}));
  Graph changed = *build(g);
  EXPECT_EQ(fuseMatMulBias(&changed), 0);
}

// Layer normalization written out in elementary ops (PP-OCRv4 rec's form and its variants).
struct LayerNormSpelling {
  bool mulSquare = false;   // d * d instead of Pow(d, 2)
  bool beta = true;         // the last Add
  bool gamma3d = false;     // gamma and beta as [1, 1, D]
  bool axesInput = false;   // opset 18: ReduceMean's axes as a second input
  int64_t axis = -1;        // ReduceMean's axis
  float exponent = 2.f;
  bool shareD = false;      // d also a graph output
  int64_t gammaSize = 0;    // 0: x's last dim
  // Normalise x reshaped to a shape computed from its values, which import cannot know.
  bool unknownShape = false;
};

std::shared_ptr<Graph> layerNormGraph(const Shape& x, const LayerNormSpelling& s) {
  GraphBuilder g;
  g.input("x", DataType::kF32, std::vector<int64_t>(x.begin(), x.end()));
  const int64_t D = s.gammaSize ? s.gammaSize : x.back();
  const Shape vec = s.gamma3d ? Shape{1, 1, D} : Shape{D};
  std::string in = "x";
  if (s.unknownShape) {  // Shape(x) + int64(0 * max(x)): x's own shape, from x's values
    Attributes scalar, toInt64;
    scalar.setInt("keepdims", 0);
    toInt64.setInt("to", 7);
    const std::string max = g.op1("ReduceMax", {"x"}, scalar);
    const std::string zero = g.op1("Cast", {g.op1("Mul", {max, g.constant("zero", filled({}, 0.f))})}, toInt64);
    in = g.op1("Reshape", {"x", g.op1("Add", {g.op1("Shape", {"x"}), zero})});
  }
  auto mean = [&](const std::string& v) {
    Attributes a;
    if (s.axesInput) {
      Tensor axes = Tensor::hostAllocate({1}, DataType::kI64);
      axes.data<int64_t>()[0] = s.axis;
      return g.op1("ReduceMean", {v, g.constant("axes", axes)});
    }
    a.setInts("axes", {s.axis});
    return g.op1("ReduceMean", {v}, a);
  };
  const std::string d = g.op1("Sub", {in, mean(in)});
  const std::string sq = s.mulSquare ? g.op1("Mul", {d, d}) : g.op1("Pow", {d, g.constant("two", filled({}, s.exponent))});
  const std::string root = g.op1("Sqrt", {g.op1("Add", {mean(sq), g.constant("eps", filled({}, 1e-5f))})});
  std::string y = g.op1("Mul", {g.op1("Div", {d, root}), g.constant("gamma", randomTensor(vec, 2, 0.5f, 1.5f))});
  if (s.beta) y = g.op1("Add", {g.constant("beta", randomTensor(vec, 3)), y});
  g.output(y);
  if (s.shareD) g.output(d);
  auto graph = build(g);
  if (s.axesInput)
    for (Node& n : graph->nodes)
      if (n.opType == "ReduceMean") n.opset = 18;
  return graph;
}

TEST(FuseLayerNorm, WrittenOutLayerNormsBecomeOneNode) {
  const LayerNormSpelling spellings[] = {{}, {true}, {false, false}, {false, true, true}, {true, true, false, true}};
  int v = 0;
  for (const Shape& x : {Shape{2, 7, 12}, Shape{2, 3, 5, 9}, Shape{40, 120}})
    for (const LayerNormSpelling& s : spellings) {
      if (s.gamma3d && x.size() < 3) continue;
      const std::string what = "spelling " + std::to_string(v++) + " on " + shapeToString(x);
      expectSameAfter(*layerNormGraph(x, s), [&](Graph* graph) {
        EXPECT_EQ(fuseLayerNorm(graph), 1) << what;
        ASSERT_EQ(graph->nodes.size(), 1u) << what;
        EXPECT_EQ(graph->nodes[0].opType, "LayerNormalization") << what;
        EXPECT_FLOAT_EQ(graph->nodes[0].attrs.getFloat("epsilon", 0), 1e-5f) << what;
        EXPECT_EQ(graph->nodes[0].inputs.size(), s.beta ? 3u : 2u) << what;
        EXPECT_EQ(graph->initializers.size(), s.beta ? 2u : 1u) << what << ": the pattern's constants are gone";
      }, 1, what, 2e-5);
    }
}

TEST(FuseLayerNorm, LeavesOtherAxesExponentsSharedValuesAndBroadcasts) {
  LayerNormSpelling axis1, cube, shared, broadcast;
  axis1.axis = 1;
  cube.exponent = 3.f;
  shared.shareD = true;
  broadcast.gammaSize = 6;  // x's last dim is 1: gamma would broadcast it
  const std::pair<Shape, LayerNormSpelling> cases[] = {
      {{2, 7, 12}, axis1}, {{2, 7, 12}, cube}, {{2, 7, 12}, shared}, {{2, 7, 1}, broadcast}};
  for (const auto& c : cases) {
    Graph g = *layerNormGraph(c.first, c.second);
    EXPECT_EQ(fuseLayerNorm(&g), 0) << shapeToString(c.first);
  }
  // x's shape unknown at import (computed at run time): fused with a 1-D gamma, not with
  // [1, 1, D] (which could add dims); a last dim that is not gamma's size is then a clear
  // shape error at planning.
  for (bool gamma3d : {false, true}) {
    LayerNormSpelling s;
    s.gamma3d = gamma3d;
    s.unknownShape = true;
    s.gammaSize = 4;
    std::shared_ptr<Graph> g = layerNormGraph({2, 5, 4}, s);
    g->inputs[0].dims = {2, -1, -1};
    Graph changed = *g;
    EXPECT_EQ(fuseLayerNorm(&changed), gamma3d ? 0 : 1);
    if (gamma3d) continue;
    const Tensor x = randomTensor({2, 3, 4}, 5);
    expectClose(runCpu(changed, x).begin()->second, runCpu(*g, x).begin()->second, 2e-5, 2e-5, "unknown shape");
    std::unique_ptr<Session> wide;
    ASSERT_TRUE(Session::create(std::make_shared<Graph>(changed), {}, &wide).isOk());
    std::map<std::string, Tensor> out;
    const Status st = wide->run({{"x", randomTensor({2, 3, 6}, 5)}}, &out);
    EXPECT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("LayerNormalization"), std::string::npos) << st.message();
  }
}

// Malformed fused-activation attributes are clean errors naming the node and the cause.
TEST(FusedActivation, BadAttributesAreErrors) {
  for (int bad = 0; bad < 2; ++bad) {
    GraphBuilder g;
    g.input("x", DataType::kF32, {1, 3, 4, 4});
    Attributes a;
    a.setString("activation", bad == 0 ? "Mish" : "Relu");
    if (bad == 1) a.setFloats("activation_affine", {1.f, 2.f, 3.f});
    g.output(g.op1("Conv", {"x", g.constant("w", randomTensor({4, 3, 1, 1}, 1))}, a));
    std::unique_ptr<Session> s;
    Status st = Session::create(build(g), {}, &s);
    std::map<std::string, Tensor> out;
    if (st.isOk()) st = s->run({{"x", randomTensor({1, 3, 4, 4}, 2)}}, &out);
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find(bad == 0 ? "fused activation 'Mish'" : "activation_affine needs 2 values"),
              std::string::npos) << st.message();
  }
}

TEST(ConstantsToInitializers, ConstantNodesBecomeInitializersUnlessGraphOutputs) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {2, 3});
  Attributes v;
  v.setTensor("value", randomTensor({2, 3}, 9));
  const std::string k = g.op1("Constant", {}, v);
  const std::string kept = g.op1("Constant", {}, v);
  g.output(g.op1("Add", {"x", k}));
  g.output(kept);
  auto graph = build(g);
  Graph changed = *graph;
  EXPECT_EQ(constantsToInitializers(&changed), 1);
  EXPECT_EQ(changed.initializers.count(k), 1u);
  expectSameAfter(*graph, constantsToInitializers, 2, "constant");
}

// An attention's q * (1 / sqrt(d)) before q @ k^T, and a scaled B after a bias was fused:
// the scale becomes the MatMul's alpha, the bias left unscaled.
TEST(FuseMatMulScale, ScalarScaledOperandsBecomeAlpha) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {2, 3, 5, 7});
  Attributes swap;
  swap.setInts("perm", {0, 1, 3, 2});
  const std::string q = g.op1("Mul", {"x", g.constant("s", filled({}, 0.2581989f))});
  g.output(g.op1("MatMul", {q, g.op1("Relu", {g.op1("Transpose", {"x"}, swap)})}));  // A scaled
  const std::string kt = g.op1("Mul", {g.constant("k", filled({1}, -1.5f)), g.op1("Transpose", {"x"}, swap)});
  g.output(g.op1("MatMul", {g.op1("Relu", {"x"}), kt}));  // B scaled
  const std::string a = g.op1("Mul", {g.op1("Relu", {"x"}), g.constant("t", filled({}, 3.f))});
  g.output(g.op1("Add", {g.op1("MatMul", {a, g.constant("w", randomTensor({7, 4}, 1))}),
                         g.constant("b", randomTensor({4}, 2))}));  // with a bias: alpha leaves it unscaled
  expectSameAfter(*build(g), [&](Graph* graph) {
    EXPECT_EQ(fuseMatMulBias(graph), 1);
    EXPECT_EQ(fuseMatMulScale(graph), 3);
    int scaled = 0;
    for (const Node& n : graph->nodes)
      if (n.opType == "MatMul") scaled += n.attrs.has("alpha");
    EXPECT_EQ(scaled, 3);
  }, 8, "q * s @ k^T, A @ (k * B), (A * t) @ W + b");
}

// The product scaled after it, (q @ k^T) * s or s * (A @ B), either operand order.
TEST(FuseMatMulScale, ScaledProductsBecomeAlpha) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {2, 3, 5, 7});
  Attributes swap;
  swap.setInts("perm", {0, 1, 3, 2});
  const std::string scores = g.op1("MatMul", {"x", g.op1("Transpose", {g.op1("Relu", {"x"})}, swap)});
  g.output(g.op1("Mul", {scores, g.constant("s", filled({}, 0.125f))}));
  const std::string p = g.op1("MatMul", {g.op1("Relu", {"x"}), g.constant("w", randomTensor({7, 4}, 1))});
  g.output(g.op1("Mul", {g.constant("k", filled({1}, -2.5f)), p}));
  // Divided: GPT-2's scores / sqrt(d), and an operand divided before the product.
  const std::string gpt = g.op1("MatMul", {g.op1("Relu", {"x"}), g.op1("Transpose", {"x"}, swap)});
  g.output(g.op1("Div", {gpt, g.constant("d", filled({}, 8.f))}));
  g.output(g.op1("MatMul", {g.op1("Div", {g.op1("Relu", {"x"}), g.constant("e", filled({}, 3.f))}),
                            g.constant("v", randomTensor({7, 4}, 3))}));
  expectSameAfter(*build(g), [&](Graph* graph) {
    EXPECT_EQ(fuseMatMulScale(graph), 4);
    int scaled = 0;
    for (const Node& n : graph->nodes) scaled += n.opType == "MatMul" && n.attrs.has("alpha");
    EXPECT_EQ(scaled, 4);
  }, 10, "(q @ k^T) * s, k * (A @ W), (q @ k^T) / 8, (A / 3) @ V");
}

TEST(FuseMatMulScale, LeavesTensorScalesSharedProductsAndOtherOps) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {4, 4});
  const std::string w = g.constant("w", randomTensor({4, 4}, 1));
  g.output(g.op1("MatMul", {g.op1("Mul", {"x", g.constant("v", randomTensor({4}, 2))}), w}));  // per-column scale
  const std::string shared = g.op1("Mul", {"x", g.constant("s", filled({}, 2.f))});
  g.output(g.op1("MatMul", {shared, w}));
  g.output(shared);  // read elsewhere
  g.output(g.op1("MatMul", {g.op1("Add", {"x", g.constant("t", filled({}, 2.f))}), w}));  // not a Mul
  g.output(g.op1("MatMul", {g.op1("Mul", {"x", g.constant("u", filled({1, 1, 1}, 2.f))}), w}));  // would raise the rank
  const std::string read = g.op1("MatMul", {"x", w});
  g.output(g.op1("Mul", {read, g.constant("r", filled({}, 2.f))}));
  g.output(read);  // the product read elsewhere
  g.output(g.op1("Mul", {g.op1("MatMul", {"x", w}), g.constant("c", randomTensor({4}, 3))}));  // per-column scale
  g.output(g.op1("Mul", {g.op1("Add", {g.op1("MatMul", {"x", w}), g.constant("b", randomTensor({4}, 4))}),
                         g.constant("q", filled({}, 2.f))}));  // a product with a bias, once FuseMatMulBias ran
  g.output(g.op1("Div", {g.constant("n", filled({}, 2.f)), g.op1("MatMul", {"x", w})}));  // k / product
  g.output(g.op1("Div", {g.op1("MatMul", {"x", w}), g.constant("z", filled({}, 0.f))}));  // divided by 0
  Graph changed = *build(g);
  fuseMatMulBias(&changed);
  EXPECT_EQ(fuseMatMulScale(&changed), 0);
}

// q @ k^T: a Transpose swapping B's last two dims goes into the MatMul as transB (batched
// B computed in the graph; a constant 2-D B transposed without perm).
TEST(FuseTransposeMatMul, SwapOfTheLastTwoDimsBecomesTransB) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {2, 3, 5, 7});
  Attributes swap;
  swap.setInts("perm", {0, 1, 3, 2});
  const std::string k = g.op1("Relu", {"x"});  // [2, 3, 5, 7], read as [2, 3, 7, 5]
  const std::string scores = g.op1("MatMul", {"x", g.op1("Transpose", {k}, swap)});  // [2, 3, 5, 5]
  g.output(g.op1("MatMul", {scores, g.op1("Transpose", {g.constant("w", randomTensor({4, 5}, 1))})}));
  expectSameAfter(*build(g), [&](Graph* graph) {
    EXPECT_EQ(fuseTransposeMatMul(graph), 2);
    for (const Node& n : graph->nodes)
      if (n.opType == "MatMul") EXPECT_EQ(n.attrs.getInt("transB", 0), 1);
  }, 3, "q @ k^T");
}

TEST(FuseTransposeMatMul, LeavesOtherPermsSharedTransposesAndA) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {4, 4, 4});
  Attributes rotate, swap;
  rotate.setInts("perm", {1, 2, 0});
  swap.setInts("perm", {0, 2, 1});
  g.output(g.op1("MatMul", {"x", g.op1("Transpose", {"x"}, rotate)}));  // not a swap of the last two
  const std::string shared = g.op1("Transpose", {"x"}, swap);
  g.output(g.op1("MatMul", {"x", shared}));
  g.output(shared);  // read elsewhere
  g.output(g.op1("MatMul", {g.op1("Transpose", {"x"}, swap), "x"}));  // A, not B
  g.output(g.op1("MatMul", {"x", g.op1("Transpose", {"x"})}));  // no perm on a rank-3 input: a reversal
  Graph changed = *build(g);
  EXPECT_EQ(fuseTransposeMatMul(&changed), 0);
}

// Squeeze-and-excite blocks (GlobalAveragePool, Conv 1x1 + activation, Conv 1x1 + activation,
// Mul) become one SqueezeExcite node without a pooled input: awkward channels, batch 2, odd
// planes (one past a GPU work-group's tile of 1024 pixels), a bias omitted, the Mul's
// operands either way round.
TEST(FuseSqueezeExcite, SqueezeAndExciteTailsBecomeOneNode) {
  struct Case { Shape x; int64_t hidden; bool bias1, xFirst; };
  for (const Case& c : {Case{{2, 13, 5, 7}, 3, true, true}, Case{{1, 96, 9, 11}, 24, false, false},
                        Case{{2, 1, 3, 1}, 1, true, false}, Case{{1, 6, 33, 35}, 2, true, true}}) {
    const int64_t C = c.x[1], C1 = c.hidden;
    const std::string what = shapeToString(c.x) + " -> " + std::to_string(C1);
    GraphBuilder g;
    g.input("x", DataType::kF32, std::vector<int64_t>(c.x.begin(), c.x.end()));
    Attributes relu, gate;
    relu.setString("activation", "Relu");
    gate.setString("activation", "HardSigmoid");
    gate.setFloats("activation_params", {0.2f, 0.5f});
    const std::string pooled = g.op1("GlobalAveragePool", {"x"});
    std::vector<std::string> in1 = {pooled, g.constant("w1", randomTensor({C1, C, 1, 1}, 1))};
    if (c.bias1) in1.push_back(g.constant("b1", randomTensor({C1}, 2)));
    const std::string h = g.op1("Conv", in1, relu);
    const std::string s = g.op1("Conv", {h, g.constant("w2", randomTensor({C, C1, 1, 1}, 3)),
                                         g.constant("b2", randomTensor({C}, 4))}, gate);
    g.output(g.op1("Mul", c.xFirst ? std::vector<std::string>{"x", s} : std::vector<std::string>{s, "x"}));
    expectSameAfter(*build(g), [&](Graph* graph) {
      EXPECT_EQ(fuseSqueezeExcite(graph), 1) << what;
      ASSERT_EQ(graph->nodes.size(), 1u) << what;
      EXPECT_EQ(graph->nodes[0].opType, "SqueezeExcite") << what;
      EXPECT_EQ(graph->nodes[0].inputs[1], "") << what;  // no pooled input: the pool went too
      EXPECT_EQ(graph->nodes[0].attrs.getString("hidden_activation", ""), "Relu") << what;
      EXPECT_EQ(graph->nodes[0].attrs.getString("activation", ""), "HardSigmoid") << what;
    }, 1, what);
  }
}

// PP-OCRv4 det's RSE blocks, x + x * SE(x): FuseResidualScale makes them x * s' (the 1 in the
// gate's activation_affine), then the tail and the Add become one SqueezeExcite.
TEST(FuseSqueezeExcite, ResidualBlocksAfterFuseResidualScale) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {2, 9, 7, 5});
  Attributes relu, gate;
  relu.setString("activation", "Relu");
  gate.setString("activation", "HardSigmoid");
  gate.setFloats("activation_params", {0.2f, 0.5f});
  const std::string h = g.op1("Conv", {g.op1("GlobalAveragePool", {"x"}), g.constant("w1", randomTensor({3, 9, 1, 1}, 1)),
                                       g.constant("b1", randomTensor({3}, 2))}, relu);
  const std::string s = g.op1("Conv", {h, g.constant("w2", randomTensor({9, 3, 1, 1}, 3)),
                                       g.constant("b2", randomTensor({9}, 4))}, gate);
  g.output(g.op1("Add", {"x", g.op1("Mul", {"x", s})}));
  expectSameAfter(*build(g), [&](Graph* graph) {
    EXPECT_EQ(fuseResidualScale(graph), 1);
    EXPECT_EQ(fuseSqueezeExcite(graph), 1);
    ASSERT_EQ(graph->nodes.size(), 1u);
    EXPECT_EQ(graph->nodes[0].opType, "SqueezeExcite");
    EXPECT_EQ(graph->nodes[0].attrs.getFloats("activation_affine"), (std::vector<float>{1.f, 1.f}));
  }, 1, "x + x * SE(x)");
}

// A pool read elsewhere too (here a graph output) stays, and the node reads it.
TEST(FuseSqueezeExcite, APoolWithOtherReadersStaysAndIsRead) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, 8, 5, 3});
  const std::string pooled = g.op1("GlobalAveragePool", {"x"});
  const std::string h = g.op1("Conv", {pooled, g.constant("w1", randomTensor({2, 8, 1, 1}, 1))});
  const std::string s = g.op1("Conv", {h, g.constant("w2", randomTensor({8, 2, 1, 1}, 2))});
  g.output(g.op1("Mul", {"x", s}));
  g.output(pooled);
  expectSameAfter(*build(g), [&](Graph* graph) {
    EXPECT_EQ(fuseSqueezeExcite(graph), 1);
    ASSERT_EQ(graph->nodes.size(), 2u);
    EXPECT_EQ(graph->nodes[0].opType, "GlobalAveragePool");
    EXPECT_EQ(graph->nodes[1].opType, "SqueezeExcite");
    EXPECT_EQ(graph->nodes[1].inputs[1], pooled);
  }, 2, "the pool is also an output");
}

TEST(FuseSqueezeExcite, LeavesSharedValuesOtherPoolsPaddingAndComputedWeights) {
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, 8, 4, 4});
  g.input("y", DataType::kF32, {1, 8, 4, 4});
  const std::string w1 = g.constant("w1", randomTensor({2, 8, 1, 1}, 1));
  const std::string w2 = g.constant("w2", randomTensor({8, 2, 1, 1}, 2));
  const std::string pooled = g.op1("GlobalAveragePool", {"x"});
  auto tail = [&](const std::string& p, const std::string& a, const std::string& b, Attributes attrs = {}) {
    return g.op1("Conv", {g.op1("Conv", {p, a}, attrs), b});
  };
  const std::string h = g.op1("Conv", {pooled, w1});
  g.output(h);  // the hidden vector read elsewhere
  g.output(g.op1("Mul", {"x", g.op1("Conv", {h, w2})}));
  g.output(g.op1("Mul", {"y", tail(pooled, w1, w2)}));  // scales another tensor than the pooled one
  g.output(g.op1("Mul", {"x", tail(g.op1("GlobalMaxPool", {"x"}), w1, w2)}));  // not an average
  Attributes padded;  // a 3x3 kernel on the pooled pixel, padded to keep it 1x1
  padded.setInts("pads", {1, 1, 1, 1});
  g.output(g.op1("Mul", {"x", tail(pooled, g.constant("w3", randomTensor({2, 8, 3, 3}, 3)), w2, padded)}));
  const std::string computed = g.op1("Neg", {w1});  // weights computed in the graph
  g.output(g.op1("Mul", {"x", tail(pooled, computed, w2)}));
  Graph changed = *build(g);
  EXPECT_EQ(fuseSqueezeExcite(&changed), 0);
}

}  // namespace
}  // namespace test
}  // namespace tessera
