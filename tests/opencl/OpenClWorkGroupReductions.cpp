// OpenCL kernels that spread one output over a work-group (issue 15: one work-item walking a
// long reduced extent idles a GPU): the global pools, against the CPU. Reduced sizes from 1 to
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

}  // namespace
}  // namespace test
}  // namespace tessera
