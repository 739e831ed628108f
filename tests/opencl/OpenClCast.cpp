// OpenCL Cast: f32 to f32 is a buffer copy on OpenCL (no ONNX node case casts float to float;
// the layer-normalization expanded cases do it inside). Other targets are not OpenCL data:
// the node runs on the CPU, visibly.
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

Attributes to(int64_t onnxType) {
  Attributes a;
  a.setInt("to", onnxType);
  return a;
}

TEST(OpenClCast, FloatToFloatIsACopy) {
  REQUIRE_OPENCL();
  for (const Shape& s : std::vector<Shape>{{3, 5, 7, 9}, {1, 13, 5, 3}, {7}, {1}})
    expectOpenClMatchesCpu("Cast", {randomTensor(s, 531, -5.f, 5.f)}, to(1), "Cast " + shapeToString(s), {}, 1, 13,
                           0.0, 0.0);
}

TEST(OpenClCast, OtherTargetsRunOnTheCpu) {
  REQUIRE_OPENCL();
  for (int64_t target : {10, 11, 7}) {  // f16, f64, i64
    OpRun r = runOp("Cast", {randomTensor({2, 3}, 533)}, to(target), 1, BackendType::kOpenCL, {}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    ASSERT_EQ(r.report.nodes.size(), 1u);
    EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU) << "Cast to ONNX type " << target;
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
