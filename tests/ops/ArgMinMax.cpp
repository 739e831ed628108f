// ArgMax / ArgMin / TopK against naive references, with ties (first or last index) and
// every axis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

// Values with many ties: a few distinct levels.
Tensor tiedTensor(const Shape& s, uint32_t seed) {
  Tensor t = randomTensor(s, seed, 0.f, 4.f);
  for (int64_t i = 0; i < t.elementCount(); ++i) t.data<float>()[i] = std::floor(t.data<float>()[i]);
  return t;
}

TEST(ArgMinMaxOp, EveryAxisWithTies) {
  const Shape s = {3, 5, 1, 13};
  const Tensor x = tiedTensor(s, 4);
  for (BackendType b : availableBackends()) {
    for (const char* op : {"ArgMax", "ArgMin"}) {
      const bool isMax = op[3] == 'M' && op[4] == 'a';
      for (int64_t axis = -4; axis < 4; ++axis) {
        for (int last = 0; last < 2; ++last) {
          for (int keep = 0; keep < 2; ++keep) {
            const int64_t a = axis < 0 ? axis + 4 : axis;
            Shape kept = s;
            kept[a] = 1;
            Shape out = kept;
            if (!keep) out.erase(out.begin() + a);
            Tensor expected = Tensor::hostAllocate(out, DataType::kI64);
            for (int64_t o = 0; o < elementCount(kept); ++o) {
              std::vector<int64_t> idx = unravelIndex(o, kept);
              int64_t best = 0;
              for (int64_t j = 0; j < s[a]; ++j) {
                idx[a] = j;
                const float v = x.data<float>()[ravelIndex(idx, s)];
                idx[a] = best;
                const float bv = x.data<float>()[ravelIndex(idx, s)];
                const bool better = isMax ? (v > bv || (last && v == bv))
                                          : (v < bv || (last && v == bv));
                if (better) best = j;
              }
              expected.data<int64_t>()[o] = best;
            }
            Attributes attrs;
            attrs.setInt("axis", axis);
            attrs.setInt("keepdims", keep);
            attrs.setInt("select_last_index", last);
            OpRun r = runOp(op, {x}, attrs, 1, b, {}, 13);
            ASSERT_TRUE(r.status.isOk()) << r.status.message();
            expectClose(r.outputs[0], expected, 0, 0,
                        std::string(backendTypeName(b)) + " " + op + " axis " +
                            std::to_string(axis) + (last ? " last" : "") + (keep ? " keep" : ""));
          }
        }
      }
    }
  }
}

TEST(TopKOp, LargestSmallestWithTies) {
  const Shape s = {3, 7, 5};
  const Tensor x = tiedTensor(s, 6);
  for (BackendType b : availableBackends()) {
    for (int64_t axis : {0, 1, -1}) {
      const int64_t a = axis < 0 ? axis + 3 : axis;
      for (int64_t k : {int64_t(0), int64_t(1), s[a] / 2, s[a]}) {
        for (int largest = 0; largest < 2; ++largest) {
          Shape out = s;
          out[a] = k;
          Tensor values = Tensor::hostAllocate(out, DataType::kF32);
          Tensor indices = Tensor::hostAllocate(out, DataType::kI64);
          Shape lines = s;
          lines[a] = 1;
          for (int64_t l = 0; l < elementCount(lines); ++l) {
            std::vector<int64_t> idx = unravelIndex(l, lines);
            std::vector<std::pair<float, int64_t>> line;
            for (int64_t j = 0; j < s[a]; ++j) {
              idx[a] = j;
              line.push_back({x.data<float>()[ravelIndex(idx, s)], j});
            }
            std::stable_sort(line.begin(), line.end(), [&](const auto& p, const auto& q) {
              return largest ? p.first > q.first : p.first < q.first;
            });
            for (int64_t j = 0; j < k; ++j) {
              idx[a] = j;
              values.data<float>()[ravelIndex(idx, out)] = line[j].first;
              indices.data<int64_t>()[ravelIndex(idx, out)] = line[j].second;
            }
          }
          Attributes attrs;
          attrs.setInt("axis", axis);
          attrs.setInt("largest", largest);
          OpRun r = runOp("TopK", {x, tensorFromInts({1}, {k})}, attrs, 2, b, {false, true}, 11);
          ASSERT_TRUE(r.status.isOk()) << r.status.message();
          const std::string what = std::string(backendTypeName(b)) + " axis " +
                                   std::to_string(axis) + " k " + std::to_string(k) +
                                   (largest ? " largest" : " smallest");
          expectClose(r.outputs[0], values, 0, 0, what + " values");
          expectClose(r.outputs[1], indices, 0, 0, what + " indices");
        }
      }
    }
  }
  OpRun r = runOp("TopK", {x, tensorFromInts({1}, {8})}, {}, 2, BackendType::kCPU, {false, true}, 11);
  EXPECT_FALSE(r.status.isOk());  // k larger than the axis
}

TEST(TopKOp, AttributeKBeforeOpset10) {
  const Tensor x = tensorFrom({2, 4}, {1, 3, 2, 3, 0, -1, 5, 5});
  Attributes attrs;
  attrs.setInt("k", 2);
  OpRun r = runOp("TopK", {x}, attrs, 2, BackendType::kCPU, {}, 1);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectClose(r.outputs[0], tensorFrom({2, 2}, {3, 3, 5, 5}), 0, 0);
  expectClose(r.outputs[1], tensorFromInts({2, 2}, {1, 3, 2, 3}), 0, 0);
}

}  // namespace
}  // namespace test
}  // namespace tessera
