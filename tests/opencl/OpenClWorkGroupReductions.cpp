// OpenCL kernels that spread one output over a work-group (issue 15: one work-item walking a
// long reduced extent idles a GPU): the global pools, Reduce*, Softmax/LogSoftmax,
// LayerNormalization and InstanceNormalization, against the CPU. Reduced sizes from 1 to
// over a million, odd ones, not multiples of the group's 64; NC4HW4 images and buffers (past
// PoCL's 8192-pixel image limit); fp16 image storage.
#include <cstdlib>

#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

// A one-node graph of `op` on x with --precision fp16; TESSERA_OPENCL_FP16_STORAGE=force takes
// the fp16 image path on devices without cl_khr_fp16 too. fp16 keeps 11 bits: 1e-2 relative.
void expectOpenClFp16Close(const std::string& op, const Tensor& x, const Attributes& attrs) {
  GraphBuilder g;
  const std::string y = g.op1(op, {g.input("x", DataType::kF32, x.shape())}, attrs);
  g.output(y);
  std::shared_ptr<Graph> graph;
  ASSERT_TRUE(g.build(&graph).isOk());
  SessionOptions o;
  o.backends = {BackendType::kOpenCL};
  o.precision = Precision::kFP16;
  setenv("TESSERA_OPENCL_FP16_STORAGE", "force", 1);
  std::unique_ptr<Session> s;
  Status st = Session::create(graph, o, &s);
  unsetenv("TESSERA_OPENCL_FP16_STORAGE");
  ASSERT_TRUE(st.isOk()) << op << " fp16: " << st.message();
  std::map<std::string, Tensor> out;
  st = s->run({{"x", x}}, &out);
  ASSERT_TRUE(st.isOk()) << op << " fp16: " << st.message();
  for (const auto& n : s->report().nodes) ASSERT_EQ(n.backend, BackendType::kOpenCL) << op << " fp16 fell back";
  OpRun cpu = runOp(op, {x}, attrs, 1, BackendType::kCPU);
  ASSERT_TRUE(cpu.status.isOk()) << cpu.status.message();
  expectClose(out.at(y), cpu.outputs[0], 1e-2, 1e-2, op + " fp16 " + shapeToString(x.shape()));
}

// Planes of 1, 63, 65, 127, 129 and 25 600 pixels (issue 15's 160x160), rank 3 to 5, channels
// not a multiple of 4, batch > 1; rank 3 [2, 5, 9000] and [1, 4, 3, 9000] are past the image
// width (buffers); [1, 2, 1030, 1030] reduces over a million pixels per output.
TEST(OpenClWorkGroupReductions, GlobalPools) {
  REQUIRE_OPENCL();
  const std::vector<Shape> shapes = {{1, 1, 1, 1},       {3, 5, 9, 7},       {2, 3, 65},     {1, 6, 127, 1},
                                     {2, 5, 3, 43},      {1, 13, 160, 160},  {2, 5, 6, 5, 7}, {1, 3, 40, 40, 40},
                                     {2, 5, 9000},       {1, 4, 3, 9000},    {1, 2, 1030, 1030}};
  for (const Shape& s : shapes) {
    const Tensor x = randomTensor(s, 91, -2.f, 2.f);
    const std::string what = shapeToString(s);
    expectOpenClMatchesCpu("GlobalAveragePool", {x}, {}, "GlobalAveragePool " + what);
    expectOpenClMatchesCpu("GlobalMaxPool", {x}, {}, "GlobalMaxPool " + what);
  }
  for (const Shape& s : std::vector<Shape>{{2, 6, 17, 23}, {1, 3, 1, 130}}) {
    const Tensor x = randomTensor(s, 92, -2.f, 2.f);
    expectOpenClFp16Close("GlobalAveragePool", x, {});
    expectOpenClFp16Close("GlobalMaxPool", x, {});
  }
}

const char* const kReduceOps[] = {"ReduceSum", "ReduceMean", "ReduceMax",       "ReduceMin",       "ReduceProd",
                                  "ReduceL1",  "ReduceL2",   "ReduceSumSquare", "ReduceLogSumExp", "ReduceLogSum"};

Attributes reduceAttrs(const std::vector<int64_t>& axes, int keepDims) {
  Attributes a = ints("axes", axes);
  a.setInt("keepdims", keepDims);
  return a;
}

std::string axesText(const std::vector<int64_t>& axes) {
  std::string t;
  for (int64_t a : axes) t += " " + std::to_string(a);
  return t;
}

// Every kind with 1, 5, 127 (one work-item per output), 128, 129 and 200 (a work-group per
// output) elements meeting in each output, keepdims both, batch 3. Values near 1 keep
// products finite and logs defined.
TEST(OpenClWorkGroupReductions, ReduceEveryKindAroundTheSwitch) {
  REQUIRE_OPENCL();
  for (int64_t n : {1, 5, 127, 128, 129, 200}) {
    const Tensor x = randomTensor({3, n, 2}, 93, 0.9f, 1.1f);
    for (const char* op : kReduceOps)
      for (int keep : {0, 1})
        expectOpenClMatchesCpu(op, {x}, reduceAttrs({-2}, keep),
                               std::string(op) + " n " + std::to_string(n) + " keepdims " + std::to_string(keep), {}, 1, 11,
                               1e-4, 1e-5);
  }
}

// Every axis, negative ones, non-adjacent pairs and all axes of a [5, 131, 3, 11] tensor:
// reduced counts 3 to 21 615, strided and contiguous.
TEST(OpenClWorkGroupReductions, ReduceEveryAxis) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({5, 131, 3, 11}, 94, 0.995f, 1.005f);
  const std::vector<std::vector<int64_t>> axesSets = {{0}, {1}, {2}, {3}, {-1}, {-3}, {1, 3}, {0, 2}, {0, 1, 2, 3}};
  for (const char* op : kReduceOps)
    for (const auto& axes : axesSets)
      expectOpenClMatchesCpu(op, {x}, reduceAttrs(axes, axes.size() % 2), std::string(op) + " axes" + axesText(axes), {},
                             1, 11, 1e-4, 1e-5);
}

// Over a million elements per output: contiguous (a [2, 1048583] row), and over two
// non-adjacent axes of [1100, 3, 1000] (1.1 million, stride 3000 and 1).
TEST(OpenClWorkGroupReductions, ReduceOverAMillion) {
  REQUIRE_OPENCL();
  const Tensor rows = randomTensor({2, 1048583}, 95, -1.f, 1.f);
  const Tensor cube = randomTensor({1100, 3, 1000}, 96, -1.f, 1.f);
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceLogSumExp"}) {
    expectOpenClMatchesCpu(op, {rows}, reduceAttrs({1}, 1), std::string(op) + " rows", {}, 1, 11, 1e-3, 1e-3);
    expectOpenClMatchesCpu(op, {cube}, reduceAttrs({0, 2}, 0), std::string(op) + " cube", {}, 1, 11, 1e-3, 1e-3);
  }
}

// Lines of 1, 5, 127 (a work-item each), 128, 129 and 300 (a work-group each) along every
// axis of [2, n, 3] and [n, 5] (contiguous and strided lines, batch > 1), and opset 11's
// flattening, where axis 1 of [2, 3, 50] makes lines of 150.
TEST(OpenClWorkGroupReductions, SoftmaxAroundTheSwitch) {
  REQUIRE_OPENCL();
  for (int64_t n : {1, 5, 127, 128, 129, 300})
    for (const Shape& s : std::vector<Shape>{{2, n, 3}, {n, 5}}) {
      const Tensor x = randomTensor(s, 97, -5.f, 5.f);
      for (int64_t axis = -static_cast<int64_t>(s.size()); axis < static_cast<int64_t>(s.size()); ++axis)
        for (const char* op : {"Softmax", "LogSoftmax"}) {
          Attributes a;
          a.setInt("axis", axis);
          expectOpenClMatchesCpu(op, {x}, a, std::string(op) + " " + shapeToString(s) + " axis " + std::to_string(axis));
        }
    }
  Attributes flat;
  flat.setInt("axis", 1);
  const Tensor x = randomTensor({2, 3, 50}, 98, -5.f, 5.f);
  expectOpenClMatchesCpu("Softmax", {x}, flat, "Softmax opset 11 flattened", {}, 1, 11);
  expectOpenClMatchesCpu("LogSoftmax", {x}, flat, "LogSoftmax opset 11 flattened", {}, 1, 11);
}

// Lines of over a million: contiguous, and strided (axis 0 of [1048583, 2]). Softmax's
// outputs are near 1e-6, so an absolute tolerance far below them. The CPU sums the line's
// exponentials serially in fp32, which at this length is 1.5e-3 low (numpy: a float32 cumsum
// of such a line against a float64 sum); the tree's 64 partials are closer to exact. A broken
// tree is off by far more (half the sum: 0.69 in LogSoftmax).
TEST(OpenClWorkGroupReductions, SoftmaxOverAMillion) {
  REQUIRE_OPENCL();
  for (const Shape& s : std::vector<Shape>{{2, 1048583}, {1048583, 2}}) {
    const Tensor x = randomTensor(s, 99, -5.f, 5.f);
    Attributes a;
    a.setInt("axis", s[0] == 2 ? 1 : 0);
    expectOpenClMatchesCpu("Softmax", {x}, a, "Softmax " + shapeToString(s), {}, 1, 17, 3e-3, 1e-12);
    expectOpenClMatchesCpu("LogSoftmax", {x}, a, "LogSoftmax " + shapeToString(s), {}, 1, 17, 1e-4, 3e-3);
  }
}

// LayerNormalization rows of 1 to 1 048 576 elements (a work-item per row below 128, a
// work-group from 128), every axis of a rank-3 tensor (negative ones too), Scale and B per
// element or single, B omitted, Mean and InvStdDev written.
TEST(OpenClWorkGroupReductions, LayerNormalizationRows) {
  REQUIRE_OPENCL();
  struct Case {
    Shape shape;
    int64_t axis;
  };
  const std::vector<Case> cases = {{{3, 5, 1}, -1},   {{3, 4, 5}, 0},   {{3, 127, 1}, 1},     {{2, 128, 1}, -2},
                                   {{3, 43, 3}, 1},   {{2, 3, 129}, 2}, {{2, 20, 50}, -2},   {{2, 1024, 1024}, 1}};
  for (const Case& c : cases) {
    const Tensor x = randomTensor(c.shape, 100, -2.f, 2.f);
    Shape rowShape(c.shape.begin() + (c.axis < 0 ? c.axis + 3 : c.axis), c.shape.end());
    Attributes a;
    a.setInt("axis", c.axis);
    const std::string what = "LayerNormalization " + shapeToString(c.shape) + " axis " + std::to_string(c.axis);
    expectOpenClMatchesCpu("LayerNormalization", {x, randomTensor(rowShape, 101), randomTensor(rowShape, 102)}, a,
                           what + " + stats", {false, true, true}, 3, 17, 1e-4, 1e-4);
    expectOpenClMatchesCpu("LayerNormalization", {x, randomTensor({1}, 103)}, a, what + " single scale, no B",
                           {false, true}, 1, 17, 1e-4, 1e-4);
  }
}

// InstanceNormalization planes of 1, 5, 127, 128, 129, 25 600 and 1 060 900 elements, rank 3
// to 5, channels not a multiple of 4, batch > 1.
TEST(OpenClWorkGroupReductions, InstanceNormalizationPlanes) {
  REQUIRE_OPENCL();
  for (const Shape& s : std::vector<Shape>{{2, 3, 1}, {2, 5, 5}, {3, 2, 127}, {2, 3, 128, 1}, {1, 5, 3, 43},
                                           {2, 3, 129}, {1, 3, 160, 160}, {1, 2, 4, 5, 7}, {1, 2, 1030, 1030}}) {
    const Tensor x = randomTensor(s, 104, -2.f, 2.f);
    expectOpenClMatchesCpu("InstanceNormalization", {x, randomTensor({s[1]}, 105), randomTensor({s[1]}, 106)}, {},
                           "InstanceNormalization " + shapeToString(s), {false, true, true}, 1, 17, 1e-4, 1e-4);
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
