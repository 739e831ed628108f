// Gemm against a naive double-precision product: every transA/transB combination, C of
// every broadcastable shape, alpha/beta, B as a graph input and as a constant (pre-packed),
// and sizes that cross the GEMM's K chunk and tile edges.
#include <gtest/gtest.h>

#include <string>

#include "backends/cpu/Gemm.hpp"
#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {
namespace {

Tensor gemmReference(const Tensor& a, const Tensor& b, const Tensor* c, bool ta, bool tb, float alpha, float beta) {
  const int64_t M = ta ? a.dim(1) : a.dim(0), K = ta ? a.dim(0) : a.dim(1), N = tb ? b.dim(0) : b.dim(1);
  Tensor y = Tensor::hostAllocate({M, N}, DataType::kF32);
  const int64_t cr = c && c->rank() == 2 ? c->dim(0) : 1, cc = c && c->rank() >= 1 ? c->dim(-1) : 1;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += double(a.data<float>()[ta ? k * M + m : m * K + k]) * b.data<float>()[tb ? n * K + k : k * N + n];
      double v = alpha * s;
      if (c) v += beta * c->data<float>()[(cr == 1 ? 0 : m) * cc + (cc == 1 ? 0 : n)];
      y.data<float>()[m * N + n] = static_cast<float>(v);
    }
  return y;
}

TEST(GemmOp, TransposesAndBias) {
  const int64_t M = 37, K = 300, N = 45;
  uint32_t seed = 1;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const Tensor a = randomTensor(ta ? Shape{K, M} : Shape{M, K}, seed++);
      const Tensor b = randomTensor(tb ? Shape{N, K} : Shape{K, N}, seed++);
      for (const Shape& cs : {Shape{}, Shape{N}, Shape{1, N}, Shape{M, 1}, Shape{M, N}, Shape{1}}) {
        const Tensor c = randomTensor(cs, seed++);
        Attributes attrs;
        attrs.setInt("transA", ta);
        attrs.setInt("transB", tb);
        attrs.setFloat("alpha", 0.75f);
        attrs.setFloat("beta", -1.5f);
        for (bool constantB : {false, true}) {
          OpRun r = runOp("Gemm", {a, b, c}, attrs, 1, BackendType::kCPU, {false, constantB, false}, 13);
          ASSERT_TRUE(r.status.isOk()) << r.status.message();
          expectClose(r.outputs[0], gemmReference(a, b, &c, ta, tb, 0.75f, -1.5f), 1e-4, 1e-4,
                      "transA " + std::to_string(ta) + " transB " + std::to_string(tb) + " C " + shapeToString(cs));
        }
      }
    }
}

// Few rows and many columns: the CPU splits the columns over its 2 threads' tasks and packs A
// once for all of them (in the step scratch), where each task had packed it; A transposed or
// not, K in one chunk or two (1030), a partial last row panel and column panel.
TEST(GemmOp, ColumnChunksShareOnePackingOfA) {
  uint32_t seed = 70;
  for (const Shape& mkn : {Shape{37, 301, 400}, Shape{20, 1030, 410}})
    for (bool ta : {false, true}) {
      GemmArgs shape;
      shape.M = mkn[0], shape.K = mkn[1], shape.N = mkn[2], shape.lda = ta ? mkn[0] : mkn[1], shape.transA = ta;
      ASSERT_GT(gemmAScratchFloats(shape, 2), 0) << shapeToString(mkn) << ": A would not be packed once";
      const Tensor a = randomTensor(ta ? Shape{mkn[1], mkn[0]} : Shape{mkn[0], mkn[1]}, seed++);
      const Tensor b = randomTensor({mkn[1], mkn[2]}, seed++), c = randomTensor({mkn[2]}, seed++);
      Attributes attrs;
      attrs.setInt("transA", ta);
      attrs.setFloat("alpha", 0.75f);
      for (bool constantB : {false, true}) {
        OpRun r = runOp("Gemm", {a, b, c}, attrs, 1, BackendType::kCPU, {false, constantB, false}, 13);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectClose(r.outputs[0], gemmReference(a, b, &c, ta, false, 0.75f, 1.f), 1e-4, 1e-4,
                    shapeToString(mkn) + " transA " + std::to_string(ta));
      }
    }
}

// The packed copy of A is held for the Session's life: past 16 MB the chunks pack their own
// rows again rather than doubling a large A's memory (sizes only: nothing is allocated).
TEST(GemmOp, NoSharedPackingOfALargeA) {
  GemmArgs shape;
  shape.M = 37, shape.N = 400;
  shape.K = shape.lda = 80000;  // A 11.8 MB, its panels (37 rows padded to 40-48) up to 15.4 MB
  EXPECT_GT(gemmAScratchFloats(shape, 2), 0);
  shape.K = shape.lda = 120000;  // A 17.8 MB
  EXPECT_EQ(gemmAScratchFloats(shape, 2), 0);
}

TEST(GemmOp, NoBiasAndSmallShapes) {
  uint32_t seed = 50;
  // N = 24 and 40 end in the CPU's 24-wide kernel, 33 in its 8-wide one; K = 600 crosses
  // its K chunks (accumulating in C). Wider than 32 columns, A is packed (and K up to 512
  // is one chunk): 26 x 301 x 71 and 26 x 601 x 71 end K mid-group and their columns in a
  // partial panel, the second after two chunks; 200 x 5 x 33 spans three row blocks with a
  // one-column remainder.
  for (const Shape& mkn : {Shape{1, 1, 1}, Shape{1, 7, 3}, Shape{5, 3, 1}, Shape{13, 17, 19}, Shape{2, 1000, 33},
                           Shape{29, 600, 24}, Shape{7, 300, 40}, Shape{26, 301, 71}, Shape{26, 601, 71},
                           Shape{200, 5, 33}}) {
    const Tensor a = randomTensor({mkn[0], mkn[1]}, seed++), b = randomTensor({mkn[1], mkn[2]}, seed++);
    OpRun r = runOp("Gemm", {a, b}, {}, 1, BackendType::kCPU, {}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], gemmReference(a, b, nullptr, false, false, 1.f, 0.f), 1e-4, 1e-4, shapeToString(mkn));
  }
}

// Row blocks whose last tile has 1 to 4 rows (M = 6q + r, the AVX2 tiles' 6 rows): those
// tiles have kernels of 2 and 4 rows. Packed A (N past 32), bias, K within one chunk and
// across two (1100: the second accumulates), B constant and not.
TEST(GemmOp, LastTilesOfFewRows) {
  uint32_t seed = 90;
  for (const Shape& mkn : {Shape{2, 70, 50}, Shape{8, 300, 96}, Shape{9, 33, 64}, Shape{10, 1100, 40},
                           Shape{13, 17, 48}, Shape{4, 1100, 35}})
    for (bool constantB : {false, true}) {
      const Tensor a = randomTensor({mkn[0], mkn[1]}, seed++), b = randomTensor({mkn[1], mkn[2]}, seed++);
      const Tensor c = randomTensor({mkn[2]}, seed++);
      OpRun r = runOp("Gemm", {a, b, c}, {}, 1, BackendType::kCPU, {false, constantB, false}, 13);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], gemmReference(a, b, &c, false, false, 1.f, 1.f), 1e-4, 1e-4, shapeToString(mkn));
    }
}

// B stored [N, K] (transB), packed in 4 x 4 blocks where a panel is whole: K a multiple of
// 4 and not (a last rows group element by element), N of whole panels and not.
TEST(GemmOp, TransposedBPanels) {
  uint32_t seed = 110;
  const int64_t M = 14;
  for (int64_t K : {61, 300, 1030})
    for (int64_t N : {16, 45, 130}) {
      const Tensor a = randomTensor({M, K}, seed++), b = randomTensor({N, K}, seed++);
      Attributes attrs;
      attrs.setInt("transB", 1);
      for (bool constantB : {false, true}) {
        OpRun r = runOp("Gemm", {a, b}, attrs, 1, BackendType::kCPU, {false, constantB}, 13);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectClose(r.outputs[0], gemmReference(a, b, nullptr, false, true, 1.f, 0.f), 1e-4, 1e-4,
                    "K " + std::to_string(K) + " N " + std::to_string(N));
      }
    }
}

// alpha goes into the CPU's packed B (gemmPackB's scale), which the Session shares between
// nodes of one constant B: two Gemms of one B with alphas 0.5 and 2 each keep their own.
TEST(GemmOp, OneConstantBUnderTwoAlphas) {
  const Tensor x = randomTensor({5, 9}, 130), w = randomTensor({9, 6}, 131);
  GraphBuilder gb;
  const std::string in = gb.input("x", DataType::kF32, {5, 9});
  const std::string b = gb.constant("w", w);
  Attributes half, two;
  half.setFloat("alpha", 0.5f);
  two.setFloat("alpha", 2.f);
  const std::string yHalf = gb.op1("Gemm", {in, b}, half), yTwo = gb.op1("Gemm", {in, b}, two);
  gb.output(yHalf);
  gb.output(yTwo);
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  std::map<std::string, Tensor> outs;
  const Status st = s->run({{"x", x}}, &outs);
  ASSERT_TRUE(st.isOk()) << st.message();
  expectClose(outs[yHalf], gemmReference(x, w, nullptr, false, false, 0.5f, 0.f), 1e-5, 1e-5, "alpha 0.5");
  expectClose(outs[yTwo], gemmReference(x, w, nullptr, false, false, 2.f, 0.f), 1e-5, 1e-5, "alpha 2");
  EXPECT_EQ(s->planCache().weightPackings, 2u);
}

TEST(GemmOp, RejectsMismatchedInnerDimension) {
  OpRun r = runOp("Gemm", {randomTensor({3, 4}, 1), randomTensor({5, 2}, 2)}, {}, 1, BackendType::kCPU, {}, 13);
  EXPECT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("inner"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
