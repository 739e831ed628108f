// Transpose: every permutation of rank-4 tensors with awkward extents, several dtypes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

void checkTranspose(const Tensor& x, const std::vector<int64_t>& perm, BackendType b) {
  Shape outShape;
  for (int64_t p : perm) outShape.push_back(x.shape()[p]);
  const Tensor expected = movedReference(x, outShape, [&](const std::vector<int64_t>& idx) {
    std::vector<int64_t> src(idx.size());
    for (size_t i = 0; i < perm.size(); ++i) src[perm[i]] = idx[i];
    return ravelIndex(src, x.shape());
  });
  Attributes attrs;
  attrs.setInts("perm", perm);
  OpRun r = runOp("Transpose", {x}, attrs, 1, b);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  std::string what = std::string(backendTypeName(b)) + " " + dataTypeName(x.dtype()) + " perm";
  for (int64_t p : perm) what += " " + std::to_string(p);
  expectSameBytes(r.outputs[0], expected, what);
}

TEST(TransposeOp, AllPermutationsOfRank4) {
  for (BackendType b : availableBackends()) {
    for (DataType dt : {DataType::kF32, DataType::kU8, DataType::kI64, DataType::kF16}) {
      const Tensor x = iotaTensor({3, 5, 1, 13}, dt);
      std::vector<int64_t> perm = {0, 1, 2, 3};
      do checkTranspose(x, perm, b);
      while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
}

TEST(TransposeOp, DefaultReversesAndLargeRuns) {
  const Tensor x = randomTensor({3, 7, 64, 33}, 5);
  for (BackendType b : availableBackends()) {
    checkTranspose(x, {0, 2, 3, 1}, b);  // NCHW -> NHWC
    checkTranspose(x, {0, 3, 1, 2}, b);
    OpRun r = runOp("Transpose", {x}, {}, 1, b);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    const Tensor expected = movedReference(x, {33, 64, 7, 3}, [&](const std::vector<int64_t>& i) {
      return ravelIndex({i[3], i[2], i[1], i[0]}, x.shape());
    });
    expectSameBytes(r.outputs[0], expected, "default perm");
  }
}

// Views whose last two dimensions are a 2-D transpose are copied in tiles (the CPU's
// copyTransposedTiles): several tiles along both, partial tiles at the ends, several planes.
// 4-byte elements go 4 x 4 at a time through SSE registers where they can, the rest one by
// one: 4, 5 (a block and one row left), 8 and 12 channels, tile widths not a multiple of 4.
TEST(TransposeOp, TiledTwoDimensionalTransposes) {
  for (BackendType b : availableBackends()) {
    for (DataType dt : {DataType::kF32, DataType::kI32, DataType::kU8, DataType::kI64}) {
      checkTranspose(iotaTensor({2, 37, 300, 5}, dt), {0, 3, 1, 2}, b);  // NHWC -> NCHW, 5 channels
      checkTranspose(iotaTensor({2, 3, 40, 70}, dt), {0, 1, 3, 2}, b);   // 70 x 40 in tiles of 16 x 16
      checkTranspose(iotaTensor({3, 17, 33, 1}, dt), {2, 0, 1, 3}, b);
      checkTranspose(iotaTensor({2, 9, 31, 4}, dt), {0, 3, 1, 2}, b);    // 4 channels, 279 pixels
      checkTranspose(iotaTensor({1, 5, 13, 8}, dt), {0, 3, 1, 2}, b);
      checkTranspose(iotaTensor({1, 12, 7, 6}, dt), {0, 2, 3, 1}, b);    // NCHW -> NHWC, 6 channels
    }
  }
}

// The 4 x 4 register transposes move bits: NaN payloads, signed zeros and subnormals come
// out as they went in.
TEST(TransposeOp, FourByteBlocksKeepEveryBitPattern) {
  const uint32_t patterns[] = {0x7fc00001u, 0xffffffffu, 0x80000000u, 0x00000001u,
                               0x7f800000u, 0xff800001u, 0x3f800000u, 0x807fffffu};
  Tensor x = Tensor::hostAllocate({2, 6, 11, 8}, DataType::kF32);
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    const uint32_t bits = patterns[i % 8] ^ static_cast<uint32_t>(i / 8 % 2);  // payloads vary too
    std::memcpy(x.data<float>() + i, &bits, sizeof bits);
  }
  for (BackendType b : availableBackends()) {
    checkTranspose(x, {0, 3, 1, 2}, b);
    checkTranspose(x, {0, 2, 3, 1}, b);
  }
}

TEST(TransposeOp, RejectsBadPerm) {
  Attributes attrs;
  attrs.setInts("perm", {0, 0, 1});
  EXPECT_FALSE(runOp("Transpose", {randomTensor({2, 3, 4}, 1)}, attrs, 1, BackendType::kCPU).status.isOk());
  attrs.setInts("perm", {1, 0});
  EXPECT_FALSE(runOp("Transpose", {randomTensor({2, 3, 4}, 1)}, attrs, 1, BackendType::kCPU).status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
