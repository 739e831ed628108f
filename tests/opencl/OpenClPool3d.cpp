// OpenCL 3-D MaxPool / AveragePool / global pools against the CPU: rank-5 NC4HW4 tensors with
// channels 1, 3, 5 (not multiples of 4), odd extents, batch > 1; strides, asymmetric pads,
// ceil_mode, count_include_pad, dilations, auto_pad, and ONNX's test_*pool_3d_default shape.
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(OpenClPool3d, MaxAverageGlobal) {
  REQUIRE_OPENCL();
  for (const Shape& s : {Shape{1, 1, 5, 7, 9}, Shape{2, 5, 6, 5, 7}, Shape{1, 3, 3, 3, 4}}) {
    const Tensor x = randomTensor(s, 31, -2.f, 2.f);
    const std::string shape = shapeToString(s);
    Attributes a = ints("kernel_shape", {3, 1, 2});
    a.setInts("strides", {2, 1, 2});
    a.setInts("pads", {1, 0, 1, 0, 0, 1});
    expectOpenClMatchesCpu("MaxPool", {x}, a, "MaxPool " + shape);
    expectOpenClMatchesCpu("AveragePool", {x}, a, "AveragePool " + shape);
    a.setInt("count_include_pad", 1);
    a.setInt("ceil_mode", 1);
    expectOpenClMatchesCpu("AveragePool", {x}, a, "AveragePool count_include_pad ceil " + shape);
    Attributes d = ints("kernel_shape", {2, 2, 2});
    d.setInts("dilations", {1, 2, 2});
    expectOpenClMatchesCpu("MaxPool", {x}, d, "MaxPool dilated " + shape);
    Attributes same = ints("kernel_shape", {2, 3, 2});
    same.setString("auto_pad", "SAME_UPPER");
    expectOpenClMatchesCpu("AveragePool", {x}, same, "AveragePool SAME_UPPER " + shape);
    expectOpenClMatchesCpu("GlobalAveragePool", {x}, {}, "GlobalAveragePool " + shape);
    expectOpenClMatchesCpu("GlobalMaxPool", {x}, {}, "GlobalMaxPool " + shape);
  }
}

TEST(OpenClPool3d, OnnxDefaultShape) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({1, 3, 32, 32, 32}, 32);
  const Attributes a = ints("kernel_shape", {2, 2, 2});
  expectOpenClMatchesCpu("MaxPool", {x}, a, "MaxPool 3-D default");
  expectOpenClMatchesCpu("AveragePool", {x}, a, "AveragePool 3-D default");
}

}  // namespace
}  // namespace test
}  // namespace tessera
