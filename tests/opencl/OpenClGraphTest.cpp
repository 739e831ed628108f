// A small conv net on OpenCL end to end: NC4HW4 tensors flow between Conv, activations,
// broadcast Add, pooling, Resize and Concat with no fallback; results match the CPU.
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace {

std::shared_ptr<Graph> convNet() {
  GraphBuilder g;
  const std::string x = g.input("x", DataType::kF32, {3, 5, 9, 7});
  Attributes pads;
  pads.setInts("pads", {1, 1, 1, 1});
  const std::string c1 = g.op1("Conv", {x, g.constant("w1", test::randomTensor({13, 5, 3, 3}, 70)),
                                        g.constant("b1", test::randomTensor({13}, 71))}, pads);
  const std::string r1 = g.op1("HardSwish", {c1});
  const std::string a1 = g.op1("Add", {r1, g.constant("bias", test::randomTensor({1, 13, 1, 1}, 72))});
  Attributes dw = pads;
  dw.setInt("group", 13);
  const std::string c2 = g.op1("Conv", {a1, g.constant("w2", test::randomTensor({13, 1, 3, 3}, 73))}, dw);
  const std::string s2 = g.op1("Mul", {g.op1("Sigmoid", {c2}), a1});
  Attributes pool;
  pool.setInts("kernel_shape", {2, 2});
  pool.setInts("strides", {2, 2});
  const std::string p = g.op1("MaxPool", {s2}, pool);
  Attributes up;
  up.setString("mode", "nearest");
  const std::string u = g.op1("Resize", {p, g.constant("roi", Tensor::hostAllocate({0}, DataType::kF32)),
                                         g.constant("scales", test::tensorFrom({4}, {1, 1, 2, 2}))}, up);
  Attributes cat;
  cat.setInt("axis", 1);
  const std::string c = g.op1("Concat", {u, g.op1("Relu", {g.op1("Slice", {s2,
      g.constant("st", test::tensorFromInts({2}, {0, 0})), g.constant("en", test::tensorFromInts({2}, {8, 6})),
      g.constant("ax", test::tensorFromInts({2}, {2, 3}))})})}, cat);
  const std::string y = g.op1("Softmax", {g.op1("GlobalAveragePool", {c})});
  g.output(y);
  std::shared_ptr<Graph> graph;
  EXPECT_TRUE(g.build(&graph).isOk());
  return graph;
}

std::map<std::string, Tensor> runNet(const std::shared_ptr<Graph>& g, BackendType b, PlacementReport* report,
                                     Precision precision = Precision::kFP32) {
  SessionOptions o;
  o.backends = {b};
  o.precision = precision;
  o.threads = 2;
  std::unique_ptr<Session> s;
  Status st = Session::create(g, o, &s);
  EXPECT_TRUE(st.isOk()) << st.message();
  std::map<std::string, Tensor> out;
  if (!st.isOk()) return out;
  std::map<std::string, Tensor> in{{"x", test::randomTensor({3, 5, 9, 7}, 74)}};
  for (int run = 0; run < 2; ++run) {  // twice: the second run reuses the plan
    st = s->run(in, &out);
    EXPECT_TRUE(st.isOk()) << st.message();
  }
  *report = s->report();
  return out;
}

TEST(OpenClGraph, ConvNetRunsEntirelyOnOpenCl) {
  REQUIRE_OPENCL();
  auto g = convNet();
  PlacementReport clReport, cpuReport;
  auto cl = runNet(g, BackendType::kOpenCL, &clReport);
  auto cpu = runNet(g, BackendType::kCPU, &cpuReport);
  ASSERT_FALSE(cl.empty());
  for (const auto& n : clReport.nodes)
    if (!n.folded) EXPECT_EQ(n.backend, BackendType::kOpenCL) << n.node << " fell back to " << backendTypeName(n.backend);
  for (const auto& kv : cpu) test::expectClose(cl.at(kv.first), kv.second, 1e-4, 1e-5, kv.first);
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// fp16 storage (rgba16f images, fp32 arithmetic). Devices without cl_khr_fp16 run fp32 when
// fp16 is asked for; TESSERA_OPENCL_FP16_STORAGE=force takes the fp16 path anyway, so it is
// tested on every device. Tolerance: fp16 keeps 11 bits, so 1e-2 relative.
TEST(OpenClGraph, ConvNetInFp16Storage) {
  REQUIRE_OPENCL();
  auto g = convNet();
  setenv("TESSERA_OPENCL_FP16_STORAGE", "force", 1);
  PlacementReport clReport, cpuReport;
  auto cl = runNet(g, BackendType::kOpenCL, &clReport, Precision::kFP16);
  unsetenv("TESSERA_OPENCL_FP16_STORAGE");
  auto cpu = runNet(g, BackendType::kCPU, &cpuReport);
  ASSERT_FALSE(cl.empty());
  for (const auto& n : clReport.nodes)
    if (!n.folded) EXPECT_EQ(n.backend, BackendType::kOpenCL) << n.node;
  for (const auto& kv : cpu) test::expectClose(cl.at(kv.first), kv.second, 1e-2, 1e-3, kv.first + " (fp16)");
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// One Session re-planned for new input shapes (memory released and re-acquired, kernels and
// work sizes redone) keeps matching the CPU.
TEST(OpenClGraph, ReplansWhenInputShapesChange) {
  REQUIRE_OPENCL();
  GraphBuilder b;
  const std::string x = b.input("x", DataType::kF32, {-1, 3, -1, -1});
  Attributes pads;
  pads.setInts("pads", {1, 1, 1, 1});
  const std::string c = b.op1("Conv", {x, b.constant("w", test::randomTensor({5, 3, 3, 3}, 90))}, pads);
  b.output(b.op1("Relu", {b.op1("Add", {c, b.constant("k", test::tensorFrom({}, {0.25f}))})}));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(b.build(&g).isOk());
  std::unique_ptr<Session> cl, cpu;
  SessionOptions o;
  o.backends = {BackendType::kOpenCL};
  ASSERT_TRUE(Session::create(g, o, &cl).isOk());
  o.backends = {BackendType::kCPU};
  ASSERT_TRUE(Session::create(g, o, &cpu).isOk());
  for (const Shape& s : {Shape{1, 3, 7, 9}, Shape{3, 3, 5, 4}, Shape{1, 3, 7, 9}}) {
    std::map<std::string, Tensor> in{{"x", test::randomTensor(s, 91)}}, a, e;
    ASSERT_TRUE(cl->run(in, &a).isOk());
    ASSERT_TRUE(cpu->run(in, &e).isOk());
    for (const auto& kv : e) test::expectClose(a.at(kv.first), kv.second, 1e-4, 1e-5, shapeToString(s));
    for (const auto& n : cl->report().nodes)
      if (!n.folded) EXPECT_EQ(n.backend, BackendType::kOpenCL) << n.node;
  }
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// Concat of NC4HW4 tensors (conv outputs) along every axis stays in NC4HW4.
TEST(OpenClGraph, ConcatOfPackedTensorsOnEveryAxis) {
  REQUIRE_OPENCL();
  for (int64_t axis = 0; axis < 4; ++axis) {
    Shape sa{2, 3, 5, 7}, sb = sa;
    int64_t mb = 8;
    if (axis == 1) mb = 5;  // channel offsets 0 and 8: whole blocks; the last input may be ragged
    else sb[axis] += 2;
    GraphBuilder g;
    Attributes pads;
    pads.setInts("pads", {1, 1, 1, 1});
    const std::string a = g.op1("Conv", {g.input("a", DataType::kF32, sa), g.constant("wa", test::randomTensor({8, 3, 3, 3}, 92))}, pads);
    const std::string b = g.op1("Conv", {g.input("b", DataType::kF32, sb), g.constant("wb", test::randomTensor({mb, 3, 3, 3}, 93))}, pads);
    Attributes cat;
    cat.setInt("axis", axis);
    g.output(g.op1("Relu", {g.op1("Concat", {a, b}, cat)}));
    std::shared_ptr<Graph> graph;
    ASSERT_TRUE(g.build(&graph).isOk());
    std::map<std::string, Tensor> in{{"a", test::randomTensor(sa, 94)}, {"b", test::randomTensor(sb, 95)}}, cl, cpu;
    std::unique_ptr<Session> s;
    SessionOptions o;
    o.backends = {BackendType::kOpenCL};
    ASSERT_TRUE(Session::create(graph, o, &s).isOk());
    ASSERT_TRUE(s->run(in, &cl).isOk());
    for (const auto& n : s->report().nodes) EXPECT_EQ(n.backend, BackendType::kOpenCL) << n.node;
    for (const auto& c : s->report().conversions)
      EXPECT_EQ(c.find("opencl NC4HW4 -> opencl NCHW"), std::string::npos) << "axis " << axis << ": " << c;
    o.backends = {BackendType::kCPU};
    ASSERT_TRUE(Session::create(graph, o, &s).isOk());
    ASSERT_TRUE(s->run(in, &cpu).isOk());
    for (const auto& kv : cpu) test::expectClose(cl.at(kv.first), kv.second, 1e-4, 1e-5, "Concat axis " + std::to_string(axis));
  }
}

// Along channels, two to four packed inputs are one kernel (concat_channels.cl), five a copy
// each: conv outputs of 4, 8, 12, 16 and 5 channels (only the last may end mid-block).
TEST(OpenClGraph, ConcatOfTwoToFivePackedTensorsAlongChannels) {
  REQUIRE_OPENCL();
  const int64_t channels[5] = {4, 8, 12, 16, 5};
  for (int count : {2, 3, 4, 5}) {
    GraphBuilder g;
    const std::string x = g.input("x", DataType::kF32, {3, 5, 9, 7});  // runNet's input
    std::vector<std::string> parts;
    for (int k = 5 - count; k < 5; ++k)
      parts.push_back(g.op1("Conv", {x, g.constant("w" + std::to_string(k), test::randomTensor({channels[k], 5, 1, 1}, 100 + k))}));
    Attributes cat;
    cat.setInt("axis", 1);
    g.output(g.op1("Relu", {g.op1("Concat", parts, cat)}));
    std::shared_ptr<Graph> graph;
    ASSERT_TRUE(g.build(&graph).isOk());
    PlacementReport clReport, cpuReport;
    const auto cl = runNet(graph, BackendType::kOpenCL, &clReport), cpu = runNet(graph, BackendType::kCPU, &cpuReport);
    for (const auto& n : clReport.nodes) EXPECT_EQ(n.backend, BackendType::kOpenCL) << n.node;
    ASSERT_EQ(cl.size(), cpu.size());
    for (const auto& kv : cpu) test::expectClose(cl.at(kv.first), kv.second, 1e-4, 1e-5, std::to_string(count) + " inputs");
  }
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// Clip on a packed (NC4HW4) tensor with one bound given at run time and the other omitted.
TEST(OpenClGraph, ClipOfPackedTensorWithRunTimeBound) {
  REQUIRE_OPENCL();
  GraphBuilder g;
  const std::string c = g.op1("Conv", {g.input("x", DataType::kF32, {1, 3, 6, 5}),
                                       g.constant("w", test::randomTensor({5, 3, 1, 1}, 96))});
  g.output(g.op1("Clip", {c, "", g.input("hi", DataType::kF32, {})}));
  std::shared_ptr<Graph> graph;
  ASSERT_TRUE(g.build(&graph).isOk());
  std::map<std::string, Tensor> in{{"x", test::randomTensor({1, 3, 6, 5}, 97)}, {"hi", test::tensorFrom({}, {0.1f})}};
  std::map<std::string, Tensor> cl, cpu;
  std::unique_ptr<Session> s;
  SessionOptions o;
  o.backends = {BackendType::kOpenCL};
  ASSERT_TRUE(Session::create(graph, o, &s).isOk());
  Status st = s->run(in, &cl);
  ASSERT_TRUE(st.isOk()) << st.message();
  for (const auto& n : s->report().nodes) if (!n.folded) EXPECT_EQ(n.backend, BackendType::kOpenCL) << n.node;
  o.backends = {BackendType::kCPU};
  ASSERT_TRUE(Session::create(graph, o, &s).isOk());
  ASSERT_TRUE(s->run(in, &cpu).isOk());
  for (const auto& kv : cpu) test::expectClose(cl.at(kv.first), kv.second, 1e-5, 1e-6, "Clip");
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// An op without an OpenCL kernel (Tile) in the middle: OpenCL, CPU, OpenCL segments, with
// the copies between them; results match the CPU and the OpenCL nodes stay on OpenCL.
TEST(OpenClGraph, FallbackInTheMiddleMakesThreeSegments) {
  REQUIRE_OPENCL();
  GraphBuilder g;
  Attributes pads;
  pads.setInts("pads", {1, 1, 1, 1});
  const std::string c = g.op1("Conv", {g.input("x", DataType::kF32, {1, 3, 5, 6}),
                                       g.constant("w", test::randomTensor({5, 3, 3, 3}, 98))}, pads);
  const std::string t = g.op1("Tile", {g.op1("Relu", {c}), g.constant("reps", test::tensorFromInts({4}, {2, 1, 1, 2}))});
  g.output(g.op1("Sigmoid", {g.op1("Add", {t, g.constant("k", test::randomTensor({1, 5, 1, 1}, 99))})}));
  std::shared_ptr<Graph> graph;
  ASSERT_TRUE(g.build(&graph).isOk());
  std::map<std::string, Tensor> in{{"x", test::randomTensor({1, 3, 5, 6}, 100)}}, cl, cpu;
  std::unique_ptr<Session> s;
  SessionOptions o;
  o.backends = {BackendType::kOpenCL};
  ASSERT_TRUE(Session::create(graph, o, &s).isOk());
  for (int run = 0; run < 2; ++run) {
    Status st = s->run(in, &cl);
    ASSERT_TRUE(st.isOk()) << st.message();
  }
  for (const auto& n : s->report().nodes)
    if (!n.folded) EXPECT_EQ(n.backend, n.opType == "Tile" ? BackendType::kCPU : BackendType::kOpenCL) << n.node;
  o.backends = {BackendType::kCPU};
  ASSERT_TRUE(Session::create(graph, o, &s).isOk());
  ASSERT_TRUE(s->run(in, &cpu).isOk());
  for (const auto& kv : cpu) test::expectClose(cl.at(kv.first), kv.second, 1e-4, 1e-5, kv.first);
}

}  // namespace
}  // namespace tessera
