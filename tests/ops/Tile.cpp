// Tile and Expand against naive references (both repeat input elements by index math).
#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

TEST(TileOp, RepeatsPerAxis) {
  const std::vector<std::vector<int64_t>> repeats = {{1, 1, 1}, {2, 1, 3}, {1, 4, 1}, {3, 2, 5},
                                                     {0, 2, 1}};
  for (BackendType b : availableBackends()) {
    for (DataType dt : {DataType::kF32, DataType::kI64, DataType::kU8}) {
      const Tensor x = iotaTensor({3, 1, 5}, dt);
      for (const auto& rep : repeats) {
        Shape out = x.shape();
        for (size_t d = 0; d < out.size(); ++d) out[d] *= rep[d];
        const Tensor expected = movedReference(x, out, [&](std::vector<int64_t> idx) {
          for (size_t d = 0; d < idx.size(); ++d) idx[d] %= x.shape()[d];
          return ravelIndex(idx, x.shape());
        });
        OpRun r = runOp("Tile", {x, tensorFromInts({3}, rep)}, {}, 1, b, {false, true});
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectSameBytes(r.outputs[0], expected, std::string(backendTypeName(b)) + " " +
                                                    dataTypeName(dt) + " to " + shapeToString(out));
      }
    }
  }
  OpRun r = runOp("Tile", {randomTensor({2, 3}, 1), tensorFromInts({1}, {2})}, {}, 1,
                  BackendType::kCPU, {false, true});
  EXPECT_FALSE(r.status.isOk());  // repeats must have one value per axis
}

TEST(ExpandOp, BroadcastsBothWays) {
  struct Case { Shape in; std::vector<int64_t> shape; Shape out; };
  const std::vector<Case> cases = {
      {{3, 1}, {2, 1, 6}, {2, 3, 6}},  {{3, 1}, {3, 4}, {3, 4}},
      {{1, 5, 1}, {3, 1, 13}, {3, 5, 13}}, {{5}, {1}, {5}},
      {{1}, {3, 5}, {3, 5}},           {{2, 3}, {2, 1, 1}, {2, 2, 3}},
  };
  for (BackendType b : availableBackends()) {
    for (const Case& c : cases) {
      const Tensor x = iotaTensor(c.in, DataType::kF32);
      const Tensor expected = movedReference(x, c.out, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> src(c.in.size());
        const size_t lead = c.out.size() - c.in.size();
        for (size_t d = 0; d < c.in.size(); ++d) src[d] = c.in[d] == 1 ? 0 : idx[lead + d];
        return ravelIndex(src, c.in);
      });
      const int64_t n = static_cast<int64_t>(c.shape.size());
      OpRun r = runOp("Expand", {x, tensorFromInts({n}, c.shape)}, {}, 1, b, {false, true});
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectSameBytes(r.outputs[0], expected, std::string(backendTypeName(b)) + " " +
                                                  shapeToString(c.in) + " to " + shapeToString(c.out));
    }
  }
  OpRun r = runOp("Expand", {randomTensor({2, 3}, 1), tensorFromInts({2}, {2, 4})}, {}, 1,
                  BackendType::kCPU, {false, true});
  EXPECT_FALSE(r.status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
