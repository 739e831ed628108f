// MatMulInteger and QLinearMatMul against a naive batched matmul: int8/uint8 operands in
// every combination, batch broadcasting, 1-D operands, odd sizes; zero points omitted, per
// tensor, per row / column and per row / column of each matrix; constant and run-time B;
// requantization with per-column scales, ties and saturation; bad inputs fail naming the node.
#include <gtest/gtest.h>

#include "QuantNaive.hpp"

namespace tessera {
namespace test {
namespace {

// The operand as the matmul sees it: a 1-D A is [1, K], a 1-D B [K, 1].
Shape promoted(const Shape& s, bool isA) {
  if (s.size() != 1) return s;
  return isA ? Shape{1, s[0]} : Shape{s[0], 1};
}

// Flat index of matrix `outBatch` (multi-index in the broadcast batch) in an operand whose
// batch dimensions are `batch` (right-aligned, 1 broadcast).
int64_t matrixOf(const std::vector<int64_t>& outBatch, const Shape& batch) {
  int64_t flat = 0;
  const size_t offset = outBatch.size() - batch.size();
  for (size_t d = 0; d < batch.size(); ++d) flat = flat * batch[d] + (batch[d] == 1 ? 0 : outBatch[offset + d]);
  return flat;
}

// Zero point (or scale) forms: 0 omitted / per tensor, 1 per tensor as [1], 2 per row (A) or
// column (B) as 1-D, 3 per row / column of each matrix (the operand's shape, K dim 1).
Shape paramShape(int form, const Shape& operand, bool isA) {
  if (form == 0) return {};
  if (form == 1) return {1};
  const Shape p = promoted(operand, isA);
  if (form == 2) return {isA ? p[p.size() - 2] : p.back()};
  Shape s = operand;
  s[isA ? s.size() - 1 : s.size() - 2] = 1;
  return s;
}

// Value of a parameter of form `form` for (matrix j of the operand, row or column r).
template <typename T>
T paramAt(const Tensor& p, int form, int64_t j, int64_t r, int64_t count) {
  if (form <= 1) return p.data<T>()[0];
  if (form == 2) return p.data<T>()[r];
  return p.data<T>()[j * count + r];
}
int64_t zpAt(const Tensor* zp, int form, int64_t j, int64_t r, int64_t count) {
  if (!zp) return 0;
  const int64_t i = form <= 1 ? 0 : form == 2 ? r : j * count + r;
  return intAt(*zp, i);
}

struct Case {
  Shape a, b, y;
};

const std::vector<Case> kCases = {
    {{5, 7}, {7, 3}, {5, 3}},
    {{3, 1, 5, 7}, {4, 7, 6}, {3, 4, 5, 6}},
    {{2, 9, 13}, {2, 13, 1}, {2, 9, 1}},
    {{7}, {2, 7, 3}, {2, 3}},
    {{3, 2, 5}, {5}, {3, 2}},
    {{1, 17}, {17, 19}, {1, 19}},
};

// The int32 sums, naively: Y[i, m, n] = sum_k (A - a_zp)(B - b_zp), in the promoted shape.
std::vector<int64_t> naiveSums(const Tensor& A, const Tensor& B, const Tensor* aZp, int aForm, const Tensor* bZp,
                               int bForm, Shape* batchOut, int64_t* M, int64_t* N) {
  const Shape a = promoted(A.shape(), true), b = promoted(B.shape(), false);
  const Shape aBatch(a.begin(), a.end() - 2), bBatch(b.begin(), b.end() - 2);
  Shape batch(std::max(aBatch.size(), bBatch.size()), 1);
  for (size_t i = 0; i < batch.size(); ++i) {
    const size_t fromEnd = batch.size() - 1 - i;
    if (fromEnd < aBatch.size()) batch[i] = std::max(batch[i], aBatch[aBatch.size() - 1 - fromEnd]);
    if (fromEnd < bBatch.size()) batch[i] = std::max(batch[i], bBatch[bBatch.size() - 1 - fromEnd]);
  }
  *M = a[a.size() - 2];
  *N = b.back();
  const int64_t K = a.back();
  std::vector<int64_t> out;
  for (int64_t i = 0; i < elementCount(batch); ++i) {
    const std::vector<int64_t> bi = unravelIndex(i, batch);
    const int64_t ja = matrixOf(bi, aBatch), jb = matrixOf(bi, bBatch);
    for (int64_t m = 0; m < *M; ++m)
      for (int64_t n = 0; n < *N; ++n) {
        int64_t sum = 0;
        for (int64_t k = 0; k < K; ++k)
          sum += (intAt(A, (ja * *M + m) * K + k) - zpAt(aZp, aForm, ja, m, *M)) *
                 (intAt(B, (jb * K + k) * *N + n) - zpAt(bZp, bForm, jb, n, *N));
        out.push_back(sum);
      }
  }
  *batchOut = batch;
  return out;
}

TEST(MatMulIntegerOp, DtypesShapesAndZeroPoints) {
  const DataType types[] = {DataType::kU8, DataType::kI8};
  int caseIndex = 0;
  for (const Case& c : kCases) {
    for (DataType at : types)
      for (DataType bt : types) {
        const Tensor A = intTensor(c.a, at, [&](int64_t i) { return spread8(i, at, 1); });
        const Tensor B = intTensor(c.b, bt, [&](int64_t i) { return spread8(i, bt, 2); });
        for (int aForm = 0; aForm < 4; ++aForm)
          for (int bForm = 0; bForm < 4; ++bForm) {
            if ((aForm == 3 && c.a.size() == 1) || (bForm == 3 && c.b.size() == 1)) continue;
            const Tensor aZp = intTensor(paramShape(aForm, c.a, true), at, [&](int64_t i) { return spread8(i, at, 5); });
            const Tensor bZp = intTensor(paramShape(bForm, c.b, false), bt, [&](int64_t i) { return spread8(i, bt, 9); });
            const bool constantB = (aForm + bForm + caseIndex) % 2 == 0;
            OpRun r = runOp("MatMulInteger", {A, B, aForm ? aZp : omittedInput(), bForm ? bZp : omittedInput()}, {}, 1,
                            BackendType::kCPU, {false, constantB, false, constantB});
            const std::string what = shapeToString(c.a) + " x " + shapeToString(c.b) + " " + dataTypeName(at) + "/" +
                                     dataTypeName(bt) + " zp forms " + std::to_string(aForm) + "," + std::to_string(bForm);
            ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
            ASSERT_EQ(r.report.nodes.size(), 1u);
            EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
            Shape batch;
            int64_t M = 0, N = 0;
            const std::vector<int64_t> sums =
                naiveSums(A, B, aForm ? &aZp : nullptr, aForm, bForm ? &bZp : nullptr, bForm, &batch, &M, &N);
            expectSameInts(r.outputs[0], intTensor(c.y, DataType::kI32, [&](int64_t i) { return sums[i]; }), what);
          }
      }
    ++caseIndex;
  }
}

TEST(QLinearMatMulOp, RequantizesWithPerColumnScales) {
  const DataType types[] = {DataType::kU8, DataType::kI8};
  for (const Case& c : kCases) {
    for (DataType at : types)
      for (DataType bt : types)
        for (DataType yt : types)
          for (int form : {1, 2, 3}) {  // b per tensor / per column; 3: also a_scale and y_scale per row
            const int bForm = form == 1 ? 1 : 2, aForm = form == 3 ? 2 : 1;
            const Tensor A = intTensor(c.a, at, [&](int64_t i) { return spread8(i, at, 3); });
            const Tensor B = intTensor(c.b, bt, [&](int64_t i) { return spread8(i, bt, 4); });
            const Tensor aZp = intTensor({}, at, [&](int64_t) { return at == DataType::kU8 ? 130 : -3; });
            const Tensor bZp = intTensor(paramShape(bForm, c.b, false), bt, [&](int64_t i) { return spread8(i, bt, 6) / 3; });
            Tensor bScale = Tensor::hostAllocate(paramShape(bForm, c.b, false), DataType::kF32);
            for (int64_t i = 0; i < bScale.elementCount(); ++i) bScale.data<float>()[i] = 0.0021f + 0.0013f * static_cast<float>(i % 5);
            Tensor aScale = Tensor::hostAllocate(paramShape(aForm, c.a, true), DataType::kF32);
            for (int64_t i = 0; i < aScale.elementCount(); ++i) aScale.data<float>()[i] = 0.0173f - 0.0011f * static_cast<float>(i % 4);
            Tensor yScale = Tensor::hostAllocate(aScale.shape(), DataType::kF32);
            for (int64_t i = 0; i < yScale.elementCount(); ++i) yScale.data<float>()[i] = 0.0118f + 0.0031f * static_cast<float>(i % 3);
            const Tensor yZp = intTensor({}, yt, [&](int64_t) { return yt == DataType::kU8 ? 121 : 7; });
            OpRun r = runOp("QLinearMatMul", {A, aScale, aZp, B, bScale, bZp, yScale, yZp}, {}, 1, BackendType::kCPU,
                            {false, false, false, bForm == 2, bForm == 2, bForm == 2, false, false});
            const std::string what = shapeToString(c.a) + " x " + shapeToString(c.b) + " " + dataTypeName(at) + "/" +
                                     dataTypeName(bt) + " -> " + dataTypeName(yt) + " form " + std::to_string(form);
            ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
            EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
            Shape batch;
            int64_t M = 0, N = 0;
            const std::vector<int64_t> sums = naiveSums(A, B, &aZp, 1, &bZp, bForm, &batch, &M, &N);
            const Tensor expected = intTensor(c.y, yt, [&](int64_t i) {
              const int64_t n = i % N, m = i / N % M;
              const float as = paramAt<float>(aScale, aForm, 0, m, M), ys = paramAt<float>(yScale, aForm, 0, m, M);
              const float bs = paramAt<float>(bScale, bForm, 0, n, N);
              const float multiplier = as * bs / ys;  // in f32, as the op defines it
              const float scaled = static_cast<float>(sums[i]) * multiplier;
              return naiveSaturate(naiveRoundHalfEven(scaled) + intAt(yZp, 0), yt);
            });
            expectSameInts(r.outputs[0], expected, what);
          }
  }
}

TEST(QLinearMatMulOp, TiesAndSaturation) {
  // A = [k] (1x1), B = [1]: the sum is k; multiplier 0.5 puts k / 2 on halves.
  const std::vector<int64_t> k = {1, 3, 5, 7, -1, -3, -5, -7, 127, -128};
  for (DataType yt : {DataType::kI8, DataType::kU8}) {
    const int64_t yz = yt == DataType::kU8 ? 100 : 0;
    for (size_t i = 0; i < k.size(); ++i) {
      OpRun r = runOp("QLinearMatMul",
                      {intTensor({1, 1}, DataType::kI8, [&](int64_t) { return k[i]; }), tensorFrom({}, {0.5f}),
                       intTensor({}, DataType::kI8, [](int64_t) { return 0; }),
                       intTensor({1, 1}, DataType::kI8, [](int64_t) { return 1; }), tensorFrom({}, {1.f}),
                       intTensor({}, DataType::kI8, [](int64_t) { return 0; }), tensorFrom({}, {1.f}),
                       intTensor({}, yt, [&](int64_t) { return yz; })},
                      {}, 1, BackendType::kCPU);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      EXPECT_EQ(intAt(r.outputs[0], 0), naiveSaturate(naiveRoundHalfEven(k[i] * 0.5) + yz, yt)) << "k " << k[i];
    }
    // Saturation: a large sum at both ends.
    OpRun r = runOp("QLinearMatMul",
                    {intTensor({2, 1}, DataType::kI8, [](int64_t i) { return i ? -128 : 127; }), tensorFrom({}, {1.f}),
                     intTensor({}, DataType::kI8, [](int64_t) { return 0; }),
                     intTensor({1, 1}, DataType::kI8, [](int64_t) { return 127; }), tensorFrom({}, {1.f}),
                     intTensor({}, DataType::kI8, [](int64_t) { return 0; }), tensorFrom({}, {1.f}),
                     intTensor({}, yt, [&](int64_t) { return yz; })},
                    {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    EXPECT_EQ(intAt(r.outputs[0], 0), yt == DataType::kU8 ? 255 : 127);
    EXPECT_EQ(intAt(r.outputs[0], 1), yt == DataType::kU8 ? 0 : -128);
  }
}

TEST(MatMulIntegerOp, BadInputsFailNamingTheNode) {
  const Tensor A = intTensor({4, 3}, DataType::kU8, [](int64_t i) { return i; });
  const Tensor B = intTensor({3, 5}, DataType::kI8, [](int64_t i) { return i; });
  const Tensor u8 = intTensor({}, DataType::kU8, [](int64_t) { return 1; });
  const Tensor i8 = intTensor({}, DataType::kI8, [](int64_t) { return 1; });
  // A zero point of the other 8-bit type than its operand.
  expectFailsNaming(runOp("MatMulInteger", {A, B, i8, omittedInput()}, {}, 1, BackendType::kCPU), "MatMulInteger",
                    "a_zero_point");
  expectFailsNaming(runOp("MatMulInteger", {A, B, omittedInput(), u8}, {}, 1, BackendType::kCPU), "MatMulInteger",
                    "b_zero_point");
  // Per-row zero point of the wrong length; per-column one given as rows.
  expectFailsNaming(runOp("MatMulInteger", {A, B, intTensor({3}, DataType::kU8, [](int64_t) { return 0; })}, {}, 1,
                          BackendType::kCPU),
                    "MatMulInteger", "one per row");
  expectFailsNaming(runOp("MatMulInteger", {A, B, omittedInput(), intTensor({3, 1}, DataType::kI8, [](int64_t) { return 0; })},
                          {}, 1, BackendType::kCPU),
                    "MatMulInteger", "one per column");
  expectFailsNaming(runOp("MatMulInteger", {A, intTensor({4, 5}, DataType::kI8, [](int64_t i) { return i; })}, {}, 1,
                          BackendType::kCPU),
                    "MatMulInteger", "inner dimensions");
  expectFailsNaming(runOp("MatMulInteger", {randomTensor({4, 3}, 1), B}, {}, 1, BackendType::kCPU), "MatMulInteger",
                    "int8 or uint8");
  const Tensor s = tensorFrom({}, {0.1f});
  expectFailsNaming(runOp("QLinearMatMul", {A, s, u8, B, s, i8, s, omittedInput()}, {}, 1, BackendType::kCPU),
                    "QLinearMatMul", "y_zero_point is required");
  expectFailsNaming(runOp("QLinearMatMul", {A, s, u8, B, tensorFrom({4}, {1, 1, 1, 1}), i8, s, u8}, {}, 1,
                          BackendType::kCPU),
                    "QLinearMatMul", "b_scale");
  expectFailsNaming(runOp("QLinearMatMul", {A, u8, u8, B, s, i8, s, u8}, {}, 1, BackendType::kCPU), "QLinearMatMul",
                    "a_scale");
}

}  // namespace
}  // namespace test
}  // namespace tessera
