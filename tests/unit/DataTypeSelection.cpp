// Execution::selectDataTypes: an execution that reads and writes another dtype than the
// graph's gets host conversions inserted around it (CPU GridSample samples f16 data in f32),
// and the answers are those of the f32 graph rounded to f16.
#include <gtest/gtest.h>

#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {
namespace {

Tensor toType(const Tensor& t, DataType dt) {
  Tensor out = Tensor::hostAllocate(t.shape(), dt);
  EXPECT_TRUE(convertDataType(t, out));
  return out;
}

std::shared_ptr<Graph> gridSampleGraph(DataType dt) {
  GraphBuilder g;
  g.input("x", dt, {2, 5, 4, 6});
  g.input("grid", dt, {2, 3, 7, 2});
  Attributes a;
  a.setString("mode", "bilinear");
  const std::string y = g.op1("GridSample", {"x", "grid"}, a);
  g.output(y, dt);
  std::shared_ptr<Graph> graph;
  EXPECT_TRUE(g.build(&graph).isOk());
  return graph;
}

TEST(DataTypeSelection, HalfInputsAreConvertedAroundAnF32Kernel) {
  const Tensor x = randomTensor({2, 5, 4, 6}, 1), grid = randomTensor({2, 3, 7, 2}, 2, -1.2f, 1.2f);
  std::unique_ptr<Session> f32, f16;
  ASSERT_TRUE(Session::create(gridSampleGraph(DataType::kF32), {}, &f32).isOk());
  ASSERT_TRUE(Session::create(gridSampleGraph(DataType::kF16), {}, &f16).isOk());
  // The f32 reference runs on the f16-rounded inputs, so only the output rounding differs.
  const Tensor xh = toType(x, DataType::kF16), gh = toType(grid, DataType::kF16);
  std::map<std::string, Tensor> a, b;
  ASSERT_TRUE(f32->run({{"x", toType(xh, DataType::kF32)}, {"grid", toType(gh, DataType::kF32)}}, &a).isOk());
  Status st = f16->run({{"x", xh}, {"grid", gh}}, &b);
  ASSERT_TRUE(st.isOk()) << st.message();
  const std::string y = f16->graph().outputs[0].name;
  ASSERT_EQ(b[y].dtype(), DataType::kF16);
  expectClose(toType(b[y], DataType::kF32), toType(toType(a[y], DataType::kF16), DataType::kF32), 0, 0, "f16");
  int in = 0, out = 0;
  for (const std::string& c : f16->report().conversions) {
    if (c.find("f16 -> f32") != std::string::npos) ++in;
    if (c.find("f32 -> f16") != std::string::npos) ++out;
  }
  EXPECT_EQ(in, 2) << f16->report().toString();
  EXPECT_EQ(out, 1) << f16->report().toString();
  ASSERT_EQ(f16->report().nodes.size(), 1u);
  EXPECT_EQ(f16->report().nodes[0].backend, BackendType::kCPU);
}

}  // namespace
}  // namespace test
}  // namespace tessera
