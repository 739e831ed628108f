// Vulkan reshaping and data movement, reductions, normalisations, softmax, matmul/gemm and
// resize against the CPU.
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanMovement, TransposeSliceConcatSplitPadExpandTile) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor x = randomTensor({3, 5, 7, 9}, 51);
  Attributes t;
  t.setInts("perm", {0, 2, 3, 1});
  expectVulkanMatchesCpu("Transpose", {x}, t);
  expectVulkanMatchesCpu("Slice", {x, tensorFromInts({2}, {1, -1}), tensorFromInts({2}, {5, 0}),
                                   tensorFromInts({2}, {1, 3}), tensorFromInts({2}, {2, -2})},
                         {}, 1, {false, true, true, true, true});
  Attributes c;
  c.setInt("axis", 1);
  expectVulkanMatchesCpu("Concat", {x, randomTensor({3, 1, 7, 9}, 52), randomTensor({3, 13, 7, 9}, 53)}, c);
  Attributes s;
  s.setInt("axis", 3);
  expectVulkanMatchesCpu("Split", {x, tensorFromInts({3}, {2, 3, 4})}, s, 3, {false, true});
  for (const char* mode : {"constant", "reflect", "edge"}) {
    Attributes p;
    p.setString("mode", mode);
    expectVulkanMatchesCpu("Pad", {x, tensorFromInts({8}, {0, 1, 2, 3, 0, 2, 1, 4}), tensorFrom({}, {0.5f})}, p, 1,
                           {false, true, true});
  }
  expectVulkanMatchesCpu("Expand", {randomTensor({5, 1, 9}, 54), tensorFromInts({4}, {3, 5, 7, 9})}, {}, 1, {false, true});
  expectVulkanMatchesCpu("Tile", {randomTensor({3, 5, 2}, 55), tensorFromInts({3}, {2, 1, 3})}, {}, 1, {false, true});
  expectVulkanMatchesCpu("Reshape", {x, tensorFromInts({3}, {3, -1, 9})}, {}, 1, {false, true});
}

TEST(VulkanReduce, AxesAndKinds) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor x = randomTensor({3, 5, 7, 2}, 61, 0.1f, 2.f);
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceSumSquare", "ReduceLogSumExp", "ReduceLogSum"})
    for (std::vector<int64_t> axes : {std::vector<int64_t>{1}, {0, 2}, {-1}, {}})
      for (int keep : {0, 1}) {
        Attributes a;
        if (!axes.empty()) a.setInts("axes", axes);
        a.setInt("keepdims", keep);
        expectVulkanMatchesCpu(op, {x}, a, 1, {}, 11);
      }
}

// Many elements per output: one work-group per output (reduce.comp's GROUP variant), several
// outputs, reduced axes that are not adjacent, a count not a multiple of the group's 64.
TEST(VulkanReduce, ManyElementsPerOutput) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor x = randomTensor({2, 131, 3, 11}, 62, 0.995f, 1.005f);  // products stay finite
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceSumSquare", "ReduceLogSumExp", "ReduceLogSum"})
    for (std::vector<int64_t> axes : {std::vector<int64_t>{1, 3}, {1, 2, 3}, {0, 1}})
      expectVulkanMatchesCpu(op, {x}, [&] {
        Attributes a;
        a.setInts("axes", axes);
        return a;
      }(), 1, {}, 11);
}

// Lines of 128 or more: one per work-group (softmax.comp's GROUP variant), strided lines
// (axis not last), a length not a multiple of 64, the opset-11 flattened form, fp16 storage.
TEST(VulkanNormalization, SoftmaxLongLines) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor x = randomTensor({2, 131, 3}, 76, -6.f, 6.f);
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (int64_t axis : {1, -2}) {
      Attributes a;
      a.setInt("axis", axis);
      expectVulkanMatchesCpu(op, {x}, a);
      expectVulkanFp16Close(op, {x}, a);
    }
    Attributes flat;
    flat.setInt("axis", 1);
    expectVulkanMatchesCpu(op, {x}, flat, 1, {}, 11);  // [2, 131*3]: one line of 393 per entry
  }
}

TEST(VulkanNormalization, SoftmaxBatchInstanceLayer) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor x = randomTensor({3, 5, 7, 9}, 71, -4.f, 4.f);
  for (int64_t axis : {0, 1, -1}) {
    Attributes a;
    a.setInt("axis", axis);
    expectVulkanMatchesCpu("Softmax", {x}, a);
    expectVulkanMatchesCpu("LogSoftmax", {x}, a);
  }
  const Tensor var = randomTensor({5}, 72, 0.5f, 2.f);
  expectVulkanMatchesCpu("BatchNormalization", {x, randomTensor({5}, 73), randomTensor({5}, 74), randomTensor({5}, 75), var},
                         {}, 1, {false, true, true, true, true});
  expectVulkanMatchesCpu("InstanceNormalization", {x, randomTensor({5}, 76), randomTensor({5}, 77)}, {}, 1,
                         {false, true, true});
  Attributes ln;
  ln.setInt("axis", -2);
  expectVulkanMatchesCpu("LayerNormalization", {x, randomTensor({7, 9}, 78), randomTensor({7, 9}, 79)}, ln, 1,
                         {false, true, true});
}

TEST(VulkanMatrix, MatMulBroadcastAndGemm) {
  TESSERA_REQUIRE_VULKAN();
  expectVulkanMatchesCpu("MatMul", {randomTensor({3, 1, 5, 7}, 81), randomTensor({4, 7, 13}, 82)}, {});
  expectVulkanMatchesCpu("MatMul", {randomTensor({7}, 83), randomTensor({3, 7, 5}, 84)}, {});
  expectVulkanMatchesCpu("MatMul", {randomTensor({2, 5, 7}, 85), randomTensor({7}, 86)}, {});
  // With a bias (the third input tools/onnx/FuseMatMulBias adds): 3-D A, batched B, 1-D A.
  expectVulkanMatchesCpu("MatMul", {randomTensor({2, 5, 7}, 87), randomTensor({7, 6}, 88), randomTensor({6}, 89)}, {}, 1,
                         {false, true, true});
  expectVulkanMatchesCpu("MatMul", {randomTensor({3, 5, 7}, 90), randomTensor({3, 7, 9}, 91), randomTensor({9}, 92)}, {}, 1,
                         {false, true, true});
  expectVulkanMatchesCpu("MatMul", {randomTensor({7}, 93), randomTensor({7, 3}, 94), randomTensor({3}, 95)}, {}, 1,
                         {false, true, true});
  for (int ta : {0, 1})
    for (int tb : {0, 1}) {
      Attributes a;
      a.setInt("transA", ta);
      a.setInt("transB", tb);
      a.setFloat("alpha", 0.5f);
      a.setFloat("beta", 2.f);
      const Tensor A = ta ? randomTensor({7, 5}, 87) : randomTensor({5, 7}, 87);
      const Tensor B = tb ? randomTensor({13, 7}, 88) : randomTensor({7, 13}, 88);
      expectVulkanMatchesCpu("Gemm", {A, B, randomTensor({13}, 89)}, a, 1, {false, true, true});
      expectVulkanMatchesCpu("Gemm", {A, B, randomTensor({5, 1}, 90)}, a);
    }
}

Tensor none() { return Tensor(Shape{}, DataType::kUnknown); }  // an omitted input

TEST(VulkanResize, NearestLinearCubic) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor x = randomTensor({3, 5, 7, 9}, 91);
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    Attributes a;
    a.setString("mode", mode);
    expectVulkanMatchesCpu("Resize", {x, none(), tensorFrom({4}, {1.f, 1.f, 2.f, 0.5f})}, a, 1, {false, false, true},
                           13);
    expectVulkanMatchesCpu("Resize", {x, none(), none(), tensorFromInts({4}, {3, 5, 5, 13})}, a, 1,
                           {false, false, false, true}, 13);
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera

namespace tessera {
namespace test {
namespace {

TEST(VulkanMoreOps, DepthSpaceLrnLayerNormOutputsPool3dClipTensorBounds) {
  TESSERA_REQUIRE_VULKAN();
  for (const char* mode : {"DCR", "CRD"}) {
    Attributes a;
    a.setInt("blocksize", 2);
    a.setString("mode", mode);
    expectVulkanMatchesCpu("DepthToSpace", {randomTensor({3, 12, 5, 3}, 101)}, a);
  }
  Attributes s2d;
  s2d.setInt("blocksize", 3);
  expectVulkanMatchesCpu("SpaceToDepth", {randomTensor({2, 5, 9, 6}, 102)}, s2d);
  Attributes lrn;
  lrn.setInt("size", 3);
  lrn.setFloat("alpha", 0.01f);
  expectVulkanMatchesCpu("LRN", {randomTensor({3, 13, 5, 7}, 103)}, lrn);
  Attributes ln;
  ln.setInt("axis", 1);
  expectVulkanMatchesCpu("LayerNormalization", {randomTensor({3, 5, 7}, 104), randomTensor({5, 7}, 105)}, ln, 3,
                         {false, true});
  Attributes p3;
  p3.setInts("kernel_shape", {2, 3, 2});
  p3.setInts("pads", {1, 0, 1, 0, 1, 1});
  expectVulkanMatchesCpu("MaxPool", {randomTensor({2, 3, 5, 7, 6}, 106)}, p3);
  expectVulkanMatchesCpu("AveragePool", {randomTensor({2, 3, 5, 7, 6}, 107)}, p3);
  expectVulkanMatchesCpu("Conv", {randomTensor({1, 5, 4, 6, 5}, 108), randomTensor({4, 5, 2, 3, 2}, 109)}, {}, 1,
                         {false, true});
  // Clip bounds computed at run time (graph inputs, not constants).
  expectVulkanMatchesCpu("Clip", {randomTensor({3, 5, 7}, 110, -2.f, 2.f), tensorFrom({}, {-0.5f}), tensorFrom({}, {0.75f})},
                         {});
}

}  // namespace
}  // namespace test
}  // namespace tessera
