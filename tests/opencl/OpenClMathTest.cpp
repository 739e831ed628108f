// OpenCL Softmax, MatMul, Gemm, Reduce*, normalisations against the CPU reference.
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace {

using test::expectOpenClMatchesCpu;
using test::ints;
using test::randomTensor;

TEST(OpenClMath, SoftmaxEveryAxis) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({3, 5, 7}, 50, -5.f, 5.f);
  for (int64_t axis : {0, 1, 2, -1}) {
    Attributes a;
    a.setInt("axis", axis);
    expectOpenClMatchesCpu("Softmax", {x}, a, "Softmax axis " + std::to_string(axis));
    expectOpenClMatchesCpu("LogSoftmax", {x}, a, "LogSoftmax axis " + std::to_string(axis));
  }
  Attributes old;
  old.setInt("axis", 1);
  expectOpenClMatchesCpu("Softmax", {x}, old, "Softmax opset 11", {}, 1, 11);
}

TEST(OpenClMath, MatMulGemm) {
  REQUIRE_OPENCL();
  expectOpenClMatchesCpu("MatMul", {randomTensor({3, 1, 5, 7}, 51), randomTensor({4, 7, 3}, 52)}, {}, "MatMul batched broadcast");
  expectOpenClMatchesCpu("MatMul", {randomTensor({7}, 53), randomTensor({7, 3}, 54)}, {}, "MatMul vector");
  // With a bias (the third input tools/onnx/FuseMatMulBias adds): 3-D A, batched B, 1-D A.
  test::expectGpuMatchesCpu(BackendType::kOpenCL, "MatMul", {randomTensor({2, 5, 7}, 55), randomTensor({7, 6}, 56), randomTensor({6}, 57)},
                      {}, 1, {false, true, true}, 17, 1e-4, 1e-5, "MatMul bias");
  test::expectGpuMatchesCpu(BackendType::kOpenCL, "MatMul", {randomTensor({3, 5, 7}, 58), randomTensor({3, 7, 9}, 59), randomTensor({9}, 60)},
                      {}, 1, {false, true, true}, 17, 1e-4, 1e-5, "MatMul batched bias");
  test::expectGpuMatchesCpu(BackendType::kOpenCL, "MatMul", {randomTensor({7}, 61), randomTensor({7, 3}, 62), randomTensor({3}, 63)},
                      {}, 1, {false, true, true}, 17, 1e-4, 1e-5, "MatMul vector bias");
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      Attributes a;
      a.setInt("transA", ta);
      a.setInt("transB", tb);
      a.setFloat("alpha", 0.5f);
      a.setFloat("beta", 2.f);
      const Tensor A = randomTensor(ta ? Shape{7, 5} : Shape{5, 7}, 55);
      const Tensor B = randomTensor(tb ? Shape{3, 7} : Shape{7, 3}, 56);
      expectOpenClMatchesCpu("Gemm", {A, B, randomTensor({3}, 57)}, a, "Gemm " + std::to_string(ta) + std::to_string(tb));
      expectOpenClMatchesCpu("Gemm", {A, B, randomTensor({5, 1}, 58)}, a, "Gemm C column");
    }
}

TEST(OpenClMath, ReduceAxesAndKinds) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({3, 5, 7, 2}, 59, 0.1f, 2.f);
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                         "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"})
    for (const auto& axes : {std::vector<int64_t>{1}, std::vector<int64_t>{0, 2}, std::vector<int64_t>{-1, 1}}) {
      Attributes a = ints("axes", axes);
      a.setInt("keepdims", axes.size() == 2 ? 0 : 1);
      expectOpenClMatchesCpu(op, {x}, a, std::string(op) + " axes " + std::to_string(axes[0]), {}, 1, 11, 1e-4, 1e-4);
    }
  expectOpenClMatchesCpu("ReduceMean", {x}, {}, "ReduceMean all", {}, 1, 11);
}

TEST(OpenClMath, Normalisations) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({3, 5, 4, 3}, 60, -2.f, 2.f);
  Attributes ln;
  ln.setInt("axis", 2);
  expectOpenClMatchesCpu("LayerNormalization", {x, randomTensor({4, 3}, 61), randomTensor({4, 3}, 62)}, ln,
                         "LayerNormalization + stats", {false, true, true}, 3);
  expectOpenClMatchesCpu("InstanceNormalization", {x, randomTensor({5}, 63), randomTensor({5}, 64)}, {},
                         "InstanceNormalization", {false, true, true});
  const Tensor var = randomTensor({5}, 65, 0.5f, 2.f);
  expectOpenClMatchesCpu("BatchNormalization", {x, randomTensor({5}, 66), randomTensor({5}, 67), randomTensor({5}, 68), var},
                         {}, "BatchNormalization constant", {false, true, true, true, true});
  expectOpenClMatchesCpu("BatchNormalization", {x, randomTensor({5}, 66), randomTensor({5}, 67), randomTensor({5}, 68), var},
                         {}, "BatchNormalization run-time statistics");
  Attributes lrn;
  lrn.setInt("size", 3);
  expectOpenClMatchesCpu("LRN", {x}, lrn, "LRN");
}

}  // namespace
}  // namespace tessera
