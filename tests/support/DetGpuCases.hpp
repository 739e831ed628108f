// Det cases shared by the GPU backends' tests (tests/{vulkan,opencl}/*Det.cpp), against the
// CPU: orders 1, 2, 3, 5, 7, 13 and the backend's largest, no batch, one and two batch
// dims; singular matrices (a repeated row, a zero column), ones that need row swaps (zeros
// on the diagonal), pivots whose running product leaves f32's range while the determinant
// does not.
#pragma once
#include "support/GpuMatchesCpu.hpp"

namespace tessera {
namespace test {

// Matrices of order M with some structure: kind 0 random, 1 row 1 = row 0, 2 column 0 zero,
// 3 a permutation-like matrix (zero diagonal: every step swaps rows).
inline Tensor detMatrices(Shape batch, int64_t M, int kind, uint32_t seed) {
  batch.push_back(M);
  batch.push_back(M);
  Tensor t = randomTensor(batch, seed, -1.f, 1.f);
  float* p = t.data<float>();
  for (int64_t b = 0; b < t.elementCount() / (M * M); ++b) {
    float* a = p + b * M * M;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < M; ++j) {
        if (kind == 1 && i == 1) a[i * M + j] = a[j];
        if (kind == 2 && j == 0) a[i * M + j] = 0.f;
        if (kind == 3) a[i * M + j] = j == (i + 1) % M ? 2.f + a[i * M + j] : (i == j ? 0.f : 0.1f * a[i * M + j]);
      }
  }
  return t;
}

inline void detOrdersBatchesAndSingular(BackendType gpu) {
  uint32_t seed = 800;
  for (const Shape& batch : {Shape{}, Shape{3}, Shape{2, 5}})
    for (int64_t M : {1, 2, 3, 5, 7, 13})
      for (int kind = 0; kind < 4; ++kind) {
        if (kind == 1 && M < 2) continue;
        expectGpuMatchesCpu(gpu, "Det", {detMatrices(batch, M, kind, seed++)}, {}, 1, {}, 11, 1e-3, 1e-5,
                            "batch " + shapeToString(batch) + " M " + std::to_string(M) + " kind " +
                                std::to_string(kind));
      }
}

// `largest`: the backend's largest order.
inline void detLargestOrderAndWideRange(BackendType gpu, int64_t largest) {
  expectGpuMatchesCpu(gpu, "Det", {detMatrices({2}, largest, 0, 820)}, {}, 1, {}, 11, 1e-3, 1e-5,
                      "Det " + std::to_string(largest));
  // diag(1e30, 1e30, 1e-30, 1e-25): the product of the first two pivots overflows f32.
  Tensor x = tensorFrom({4, 4}, {1e30f, 0, 0, 0, 0, 1e30f, 0, 0, 0, 0, 1e-30f, 0, 0, 0, 0, 1e-25f});
  expectGpuMatchesCpu(gpu, "Det", {x}, {}, 1, {}, 11, 1e-5, 0, "Det wide range");
}

}  // namespace test
}  // namespace tessera
