// DepthToSpace (DCR and CRD) and SpaceToDepth, against the formulas of the ONNX spec
// written element by element.
#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

TEST(DepthToSpaceOp, DcrAndCrd) {
  for (BackendType b : availableBackends()) {
    for (int64_t bs : {1, 2, 3}) {
      for (int64_t c : {1, 3, 5}) {
        for (bool crd : {false, true}) {
          const Shape in = {3, c * bs * bs, 5, 1};
          const Tensor x = iotaTensor(in, DataType::kF32);
          const Shape out = {3, c, 5 * bs, bs};
          const Tensor expected = movedReference(x, out, [&](const std::vector<int64_t>& i) {
            const int64_t bh = i[2] % bs, bw = i[3] % bs;
            const int64_t ch = crd ? i[1] * bs * bs + bh * bs + bw : (bh * bs + bw) * c + i[1];
            return ravelIndex({i[0], ch, i[2] / bs, i[3] / bs}, in);
          });
          Attributes attrs;
          attrs.setInt("blocksize", bs);
          attrs.setString("mode", crd ? "CRD" : "DCR");
          OpRun r = runOp("DepthToSpace", {x}, attrs, 1, b);
          ASSERT_TRUE(r.status.isOk()) << r.status.message();
          expectSameBytes(r.outputs[0], expected,
                          std::string(backendTypeName(b)) + (crd ? " CRD" : " DCR") + " bs " +
                              std::to_string(bs) + " c " + std::to_string(c));
        }
      }
    }
  }
  Attributes attrs;
  attrs.setInt("blocksize", 2);
  EXPECT_FALSE(runOp("DepthToSpace", {randomTensor({1, 6, 2, 2}, 1)}, attrs, 1,
                     BackendType::kCPU).status.isOk());
}

TEST(SpaceToDepthOp, Blocks) {
  for (BackendType b : availableBackends()) {
    for (int64_t bs : {1, 2, 3}) {
      for (int64_t c : {1, 3, 13}) {
        const Shape in = {3, c, 2 * bs, 3 * bs};
        const Tensor x = iotaTensor(in, DataType::kI64);
        const Shape out = {3, c * bs * bs, 2, 3};
        const Tensor expected = movedReference(x, out, [&](const std::vector<int64_t>& i) {
          const int64_t block = i[1] / c, ch = i[1] % c;
          const int64_t bh = block / bs, bw = block % bs;
          return ravelIndex({i[0], ch, i[2] * bs + bh, i[3] * bs + bw}, in);
        });
        Attributes attrs;
        attrs.setInt("blocksize", bs);
        OpRun r = runOp("SpaceToDepth", {x}, attrs, 1, b);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectSameBytes(r.outputs[0], expected, std::string(backendTypeName(b)) + " bs " +
                                                    std::to_string(bs) + " c " + std::to_string(c));
      }
    }
  }
  Attributes attrs;
  attrs.setInt("blocksize", 2);
  EXPECT_FALSE(runOp("SpaceToDepth", {randomTensor({1, 1, 3, 4}, 1)}, attrs, 1,
                     BackendType::kCPU).status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
