// MatMul against a naive reference: 1-D operands, batch broadcasting in both directions,
// B as a graph input and as a constant, and sizes past the GEMM tiles; the bias and fused
// activation of ops/MatMul.hpp on every backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "support/Nc4StorageChecks.hpp"
#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {
namespace {

// numpy matmul for f32, any ranks.
Tensor matmulReference(const Tensor& a, const Tensor& b) {
  Shape as = a.shape(), bs = b.shape();
  const bool av = as.size() == 1, bv = bs.size() == 1;
  if (av) as.insert(as.begin(), 1);
  if (bv) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2), batch;
  EXPECT_TRUE(broadcastShapes(ab, bb, &batch));
  Shape out = batch;
  if (!av) out.push_back(M);
  if (!bv) out.push_back(N);
  Tensor y = Tensor::hostAllocate(out, DataType::kF32);
  const int64_t batches = elementCount(batch);
  for (int64_t i = 0; i < batches; ++i) {
    // Index of batch i in a's and b's own batch dimensions (broadcast ones pinned to 0).
    auto offsetIn = [&](const Shape& own) {
      int64_t rest = i, at = 0, stride = 1;
      for (size_t d = batch.size(); d-- > 0;) {
        const int64_t idx = rest % batch[d];
        rest /= batch[d];
        const int64_t od = static_cast<int64_t>(d) - static_cast<int64_t>(batch.size() - own.size());
        if (od >= 0) {
          if (own[od] != 1) at += idx * stride;
          stride *= own[od];
        }
      }
      return at;
    };
    const float* ap = a.data<float>() + offsetIn(ab) * M * K;
    const float* bp = b.data<float>() + offsetIn(bb) * K * N;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += double(ap[m * K + k]) * bp[k * N + n];
        y.data<float>()[(i * M + m) * N + n] = static_cast<float>(s);
      }
  }
  return y;
}

TEST(MatMulOp, ShapesAndBroadcasting) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{3, 4}, {4, 3}},       {{7}, {7, 5}},          {{2, 3, 7}, {7}},        {{9}, {9}},
      {{2, 3, 4}, {2, 4, 3}}, {{1, 2, 3, 4}, {1, 2, 4, 3}}, {{5, 1, 6, 13}, {3, 13, 17}},
      {{4, 5}, {2, 3, 5, 6}}, {{3, 1, 2, 70}, {1, 4, 70, 30}}, {{130, 260}, {260, 70}},
      // A last row panel of the CPU GEMM holding 1 or 4 rows (49 = 4 x 12 + 1, 52 = 4 x 12 + 4).
      {{49, 40}, {40, 70}}, {{2, 52, 33}, {33, 90}},
      // K in one GEMM chunk up to 1024 (701: a partial last group of 4), in chunks past it,
      // and a grid of row and column chunks (130 rows: two row chunks).
      {{130, 701}, {701, 100}}, {{30, 1100}, {1100, 40}},
      // B past 4 MB (a transformer MLP's weights): column chunks only, of uneven panel counts
      // (66 panels in 8), each packing all of A, K in two chunks.
      {{100, 1030}, {1030, 1050}},
      // One B for every matrix of A: the CPU makes them one product of all A's rows (a CRNN
      // head's one-row matrices; two batch dims).
      {{64, 1, 70}, {70, 300}}, {{3, 2, 41, 33}, {33, 50}},
  };
  uint32_t seed = 1;
  for (const auto& c : cases) {
    const Tensor a = randomTensor(c.first, seed++), b = randomTensor(c.second, seed++);
    const Tensor expected = matmulReference(a, b);
    for (bool constantB : {false, true}) {
      OpRun r = runOp("MatMul", {a, b}, {}, 1, BackendType::kCPU, {false, constantB}, 13);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], expected, 1e-4, 1e-4, shapeToString(c.first) + " @ " + shapeToString(c.second));
    }
  }
}

// y = act(A B + bias) with the activations the import passes fuse (an MLP's Swish, GELU's
// sigmoid form, GELU, Relu, HardSigmoid), with and without the bias, on every backend: the GPU
// kernels' plain and split builds (split forced).
TEST(MatMulOp, FusedActivationAfterTheBiasOnEveryBackend) {
  struct Case { Shape a, b; std::string act; std::vector<float> params; bool withBias; };
  const Case cases[] = {{{2, 5, 7}, {7, 6}, "Swish", {1.702f}, true},
                        {{3, 13}, {13, 9}, "Relu", {}, false},
                        {{1, 300}, {300, 3}, "HardSigmoid", {0.2f, 0.5f}, true},  // few outputs, long K
                        {{1, 300}, {300, 3}, "Sigmoid", {}, false},
                        {{2, 9, 70}, {70, 33}, "Gelu", {}, true},
                        {{2, 9, 70}, {70, 33}, "GeluTanh", {}, true}};
  // The activations written out here, not taken from the library.
  auto activate = [](const Case& c, float v) {
    if (c.act == "Swish") return v / (1.f + std::exp(-c.params[0] * v));
    if (c.act == "Relu") return std::max(v, 0.f);
    if (c.act == "HardSigmoid") return std::min(1.f, std::max(0.f, c.params[0] * v + c.params[1]));
    if (c.act == "Gelu") return static_cast<float>(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    if (c.act == "GeluTanh")
      return static_cast<float>(0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
    return 1.f / (1.f + std::exp(-v));  // Sigmoid
  };
  uint32_t seed = 40;
  for (const char* split : {"off", "16"}) {
    ScopedEnvVar vk("TESSERA_VULKAN_SPLIT", split), cl("TESSERA_OPENCL_SPLIT", split);
    for (const Case& c : cases) {
      const int64_t N = c.b.back();
      const Tensor a = randomTensor(c.a, seed++, -2.f, 2.f), b = randomTensor(c.b, seed++), bias = randomTensor({N}, seed++);
      Tensor expected = matmulReference(a, b);
      for (int64_t i = 0; i < expected.elementCount(); ++i) {
        float& v = expected.data<float>()[i];
        v = activate(c, v + (c.withBias ? bias.data<float>()[i % N] : 0.f));
      }
      Attributes attrs;
      attrs.setString("activation", c.act);
      if (!c.params.empty()) attrs.setFloats("activation_params", c.params);
      std::vector<Tensor> inputs = {a, b};
      if (c.withBias) inputs.push_back(bias);
      const std::string what = shapeToString(c.a) + " @ " + shapeToString(c.b) + " " + c.act +
                               (c.withBias ? " + bias" : "") + ", split " + split;
      for (BackendType backend : availableBackends()) {
        OpRun r = runOp("MatMul", inputs, attrs, 1, backend, {false, true, true}, 13);
        ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
        for (const auto& n : r.report.nodes) EXPECT_EQ(n.backend, backend) << what;
        expectClose(r.outputs[0], expected, 1e-4, 1e-5, what + " on " + backendTypeName(backend));
      }
    }
  }
}

// y = act(A B + bias + Z), Z of the product's shape (ops/MatMul.hpp, FuseConvAdd: a
// transformer's residual sums), with and without the bias, batched, on every backend: the
// GPU kernels' plain and split builds (split forced). Z a graph input (not constant).
TEST(MatMulOp, ResidualZAfterTheBiasBeforeTheActivationOnEveryBackend) {
  struct Case { Shape a, b; bool withBias; bool relu; };
  const Case cases[] = {{{2, 5, 7}, {7, 6}, true, true},
                        {{3, 13}, {13, 9}, false, false},
                        {{2, 3, 5, 4}, {3, 4, 7}, true, false},  // batch broadcast
                        {{1, 300}, {300, 3}, false, true}};      // few outputs, long K
  uint32_t seed = 90;
  for (const char* split : {"off", "16"}) {
    ScopedEnvVar vk("TESSERA_VULKAN_SPLIT", split), cl("TESSERA_OPENCL_SPLIT", split);
    for (const Case& c : cases) {
      const int64_t N = c.b.back();
      const Tensor a = randomTensor(c.a, seed++, -2.f, 2.f), b = randomTensor(c.b, seed++), bias = randomTensor({N}, seed++);
      Tensor expected = matmulReference(a, b);
      const Tensor z = randomTensor(expected.shape(), seed++, -2.f, 2.f);
      for (int64_t i = 0; i < expected.elementCount(); ++i) {
        float& v = expected.data<float>()[i];
        v += (c.withBias ? bias.data<float>()[i % N] : 0.f) + z.data<float>()[i];
        if (c.relu) v = std::max(v, 0.f);
      }
      Attributes attrs;
      if (c.relu) attrs.setString("activation", "Relu");
      const std::vector<Tensor> inputs = {a, b, c.withBias ? bias : Tensor(Shape{}, DataType::kUnknown), z};
      const std::string what = shapeToString(c.a) + " @ " + shapeToString(c.b) + (c.withBias ? " + bias" : "") +
                               " + Z" + (c.relu ? ", Relu" : "") + ", split " + split;
      for (BackendType backend : availableBackends()) {
        OpRun r = runOp("MatMul", inputs, attrs, 1, backend, {false, true, c.withBias, false}, 13);
        ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
        for (const auto& n : r.report.nodes) EXPECT_EQ(n.backend, backend) << what;
        expectClose(r.outputs[0], expected, 1e-4, 1e-5, what + " on " + backendTypeName(backend));
      }
    }
  }
  // A Z of another shape is an error naming it.
  const Tensor a = randomTensor({3, 4}, 1), b = randomTensor({4, 5}, 2);
  const Tensor none(Shape{}, DataType::kUnknown);
  OpRun r = runOp("MatMul", {a, b, none, randomTensor({1, 5}, 3)}, {}, 1, BackendType::kCPU, {}, 13);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("residual Z"), std::string::npos) << r.status.message();
}

// B stored with its last two dims swapped (ops/MatMul.hpp's transB): the product of A and
// the B it stands for, with batch broadcasting, a bias and an activation, on every backend
// (the GPU kernels' plain and split builds).
TEST(MatMulOp, TransposedBOnEveryBackend) {
  const std::vector<std::pair<Shape, Shape>> cases = {  // A, the B multiplied by (stored transposed)
      {{2, 3, 5, 7}, {2, 3, 7, 6}}, {{4, 13}, {13, 9}}, {{3, 1, 300}, {1, 300, 3}}, {{2, 5, 7}, {7, 6}}};
  uint32_t seed = 70;
  for (const char* split : {"off", "16"}) {
    ScopedEnvVar vk("TESSERA_VULKAN_SPLIT", split), cl("TESSERA_OPENCL_SPLIT", split);
    for (const auto& c : cases) {
      const Tensor a = randomTensor(c.first, seed++), b = randomTensor(c.second, seed++);
      Shape stored = c.second;
      std::swap(stored[stored.size() - 1], stored[stored.size() - 2]);
      Tensor bt = Tensor::hostAllocate(stored, DataType::kF32);
      const int64_t K = c.second[c.second.size() - 2], N = c.second.back(), mats = b.elementCount() / (K * N);
      for (int64_t m = 0; m < mats; ++m)
        for (int64_t k = 0; k < K; ++k)
          for (int64_t n = 0; n < N; ++n) bt.data<float>()[(m * N + n) * K + k] = b.data<float>()[(m * K + k) * N + n];
      const Tensor expected = matmulReference(a, b);
      Attributes attrs;
      attrs.setInt("transB", 1);
      const std::string what = shapeToString(c.first) + " @ " + shapeToString(c.second) + " stored " +
                               shapeToString(stored) + ", split " + split;
      for (BackendType backend : availableBackends())
        for (bool constantB : {false, true}) {
          OpRun r = runOp("MatMul", {a, bt}, attrs, 1, backend, {false, constantB}, 13);
          ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
          for (const auto& n : r.report.nodes) EXPECT_EQ(n.backend, backend) << what;
          expectClose(r.outputs[0], expected, 1e-4, 1e-4, what + " on " + backendTypeName(backend));
        }
    }
  }
  Attributes attrs;  // a 1-D B has no last two dims to swap
  attrs.setInt("transB", 1);
  OpRun r = runOp("MatMul", {randomTensor({3, 4}, 1), randomTensor({4}, 2)}, attrs, 1, BackendType::kCPU, {}, 13);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("transB"), std::string::npos) << r.status.message();
}

// alpha (ops/MatMul.hpp) scales the product before the bias and the activation, on every
// backend (the GPU kernels' plain and split builds).
TEST(MatMulOp, AlphaScalesTheProductBeforeTheBias) {
  uint32_t seed = 90;
  for (const char* split : {"off", "16"}) {
    ScopedEnvVar vk("TESSERA_VULKAN_SPLIT", split), cl("TESSERA_OPENCL_SPLIT", split);
    for (const auto& c : std::vector<std::pair<Shape, Shape>>{{{2, 3, 5, 8}, {2, 3, 8, 5}}, {{1, 300}, {300, 3}}}) {
      const Tensor a = randomTensor(c.first, seed++), b = randomTensor(c.second, seed++);
      const int64_t N = c.second.back();
      const Tensor bias = randomTensor({N}, seed++);
      Tensor expected = matmulReference(a, b);
      for (int64_t i = 0; i < expected.elementCount(); ++i) {
        float& v = expected.data<float>()[i];
        v = std::max(0.f, v * 0.2581989f + bias.data<float>()[i % N]);
      }
      Attributes attrs;
      attrs.setFloat("alpha", 0.2581989f);
      attrs.setString("activation", "Relu");
      const std::string what = shapeToString(c.first) + " @ " + shapeToString(c.second) + ", split " + split;
      for (BackendType backend : availableBackends())
        for (bool constantB : {false, true}) {  // the CPU packs alpha into B, once when constant
          OpRun r = runOp("MatMul", {a, b, bias}, attrs, 1, backend, {false, constantB, true}, 13);
          ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
          for (const auto& n : r.report.nodes) EXPECT_EQ(n.backend, backend) << what;
          expectClose(r.outputs[0], expected, 1e-4, 1e-5,
                      what + (constantB ? ", constant B" : "") + " on " + backendTypeName(backend));
        }
    }
  }
}

// Three MatMuls of one constant B with alphas 0.5, 3 and 1: the CPU's packed copies of B
// (alpha folded in, shared by the Session's plans) are three, not one reused by all.
TEST(MatMulOp, OneConstantBUnderThreeAlphasPacksThrice) {
  const Tensor x = randomTensor({3, 7}, 91), m = randomTensor({7, 5}, 92);
  GraphBuilder gb;
  const std::string in = gb.input("x", DataType::kF32, {3, 7});
  const std::string b = gb.constant("m", m);
  std::vector<std::pair<float, std::string>> outputs;
  for (float alpha : {0.5f, 3.f, 1.f}) {
    Attributes attrs;
    if (alpha != 1.f) attrs.setFloat("alpha", alpha);
    outputs.emplace_back(alpha, gb.op1("MatMul", {in, b}, attrs));
    gb.output(outputs.back().second);
  }
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  std::map<std::string, Tensor> outs;
  const Status st = s->run({{"x", x}}, &outs);
  ASSERT_TRUE(st.isOk()) << st.message();
  const Tensor product = matmulReference(x, m);
  for (const auto& [alpha, name] : outputs) {
    Tensor expected = Tensor::hostAllocate(product.shape(), DataType::kF32);
    for (int64_t i = 0; i < expected.elementCount(); ++i) expected.data<float>()[i] = alpha * product.data<float>()[i];
    expectClose(outs[name], expected, 1e-5, 1e-5, "alpha " + std::to_string(alpha));
  }
  EXPECT_EQ(s->planCache().weightPackings, 3u);
}

TEST(MatMulOp, RejectsBadShapes) {
  OpRun r = runOp("MatMul", {randomTensor({2, 3, 4}, 1), randomTensor({3, 5, 2}, 2)}, {}, 1, BackendType::kCPU, {}, 13);
  EXPECT_FALSE(r.status.isOk());
  r = runOp("MatMul", {randomTensor({2, 3, 4}, 1), randomTensor({3, 4, 2}, 2)}, {}, 1, BackendType::kCPU, {}, 13);
  EXPECT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("broadcast"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
