// NonMaxSuppression against a naive greedy reference: both box encodings, flipped corners,
// several batches and classes, tied scores, iou and score thresholds, max boxes 0, 1, a few
// and more than there are; identical and zero-area boxes; inside a graph after computed
// inputs (staged) and on constants (folded); bad inputs fail naming the node.
#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {
namespace {

struct NmsCase {
  int64_t batches, classes, spatial;
  bool center;
  int64_t maxOut;  // < 0: input omitted
  float iou;
  bool hasScoreThreshold;
  float scoreThreshold;
};

// Corners [x1, y1, x2, y2] (x1 <= x2, y1 <= y2) of box i of batch b.
std::vector<float> corners(const Tensor& boxes, int64_t b, int64_t i, bool center) {
  const float* p = boxes.data<float>() + (b * boxes.dim(1) + i) * 4;
  if (center) return {p[0] - p[2] / 2, p[1] - p[3] / 2, p[0] + p[2] / 2, p[1] + p[3] / 2};
  return {std::min(p[1], p[3]), std::min(p[0], p[2]), std::max(p[1], p[3]), std::max(p[0], p[2])};
}

bool overlapsTooMuch(const std::vector<float>& a, const std::vector<float>& b, float threshold) {
  const float w = std::min(a[2], b[2]) - std::max(a[0], b[0]);
  const float h = std::min(a[3], b[3]) - std::max(a[1], b[1]);
  if (w <= 0 || h <= 0) return false;
  const float areaA = (a[2] - a[0]) * (a[3] - a[1]), areaB = (b[2] - b[0]) * (b[3] - b[1]);
  if (areaA <= 0 || areaB <= 0) return false;
  const float inter = w * h;
  return inter / (areaA + areaB - inter) > threshold;
}

// Greedy NMS, naively: repeatedly take the best remaining candidate by a linear scan.
Tensor nmsReference(const Tensor& boxes, const Tensor& scores, const NmsCase& c) {
  std::vector<int64_t> rows;
  for (int64_t b = 0; b < c.batches; ++b)
    for (int64_t k = 0; k < c.classes; ++k) {
      const float* s = scores.data<float>() + (b * c.classes + k) * c.spatial;
      std::vector<bool> used(static_cast<size_t>(c.spatial), false);
      std::vector<int64_t> kept;
      while (static_cast<int64_t>(kept.size()) < c.maxOut) {
        int64_t best = -1;
        for (int64_t i = 0; i < c.spatial; ++i) {
          if (used[i] || (c.hasScoreThreshold && !(s[i] > c.scoreThreshold))) continue;
          if (best < 0 || s[i] > s[best]) best = i;  // ties: the first (lowest) index stays
        }
        if (best < 0) break;
        used[best] = true;
        bool keep = true;
        for (int64_t j : kept)
          keep = keep && !overlapsTooMuch(corners(boxes, b, j, c.center), corners(boxes, b, best, c.center), c.iou);
        if (keep) kept.push_back(best);
      }
      for (int64_t j : kept) rows.insert(rows.end(), {b, k, j});
    }
  return tensorFromInts({static_cast<int64_t>(rows.size()) / 3, 3}, rows);
}

// Boxes crowded into a small field so that many overlap; corners in either order; scores
// on a coarse grid so that ties happen.
void makeInputs(const NmsCase& c, uint32_t seed, Tensor* boxes, Tensor* scores) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(0.f, 4.f), size(0.2f, 2.5f);
  *boxes = Tensor::hostAllocate({c.batches, c.spatial, 4}, DataType::kF32);
  float* p = boxes->data<float>();
  for (int64_t i = 0; i < c.batches * c.spatial; ++i, p += 4) {
    const float a = pos(rng), b = pos(rng), w = size(rng), h = size(rng);
    if (c.center) {
      p[0] = a, p[1] = b, p[2] = w, p[3] = h;
    } else if (rng() % 2) {
      p[0] = a, p[1] = b, p[2] = a + h, p[3] = b + w;
    } else {
      p[0] = a + h, p[1] = b + w, p[2] = a, p[3] = b;  // flipped corners
    }
  }
  *scores = Tensor::hostAllocate({c.batches, c.classes, c.spatial}, DataType::kF32);
  for (int64_t i = 0; i < scores->elementCount(); ++i) scores->data<float>()[i] = static_cast<float>(rng() % 10) / 10.f;
}

Tensor f32Scalar(float v) { return tensorFrom({1}, {v}); }

std::vector<Tensor> nmsInputs(const Tensor& boxes, const Tensor& scores, const NmsCase& c) {
  return {boxes, scores, c.maxOut < 0 ? omittedInput() : tensorFromInts({1}, {c.maxOut}), f32Scalar(c.iou),
          c.hasScoreThreshold ? f32Scalar(c.scoreThreshold) : omittedInput()};
}

Attributes centerAttr(bool center) {
  Attributes a;
  a.setInt("center_point_box", center ? 1 : 0);
  return a;
}

TEST(NonMaxSuppressionOp, SweepAgainstNaive) {
  uint32_t seed = 1;
  for (const auto& dims : std::vector<std::vector<int64_t>>{{1, 1, 1}, {1, 2, 7}, {3, 5, 13}, {2, 3, 33}})
    for (bool center : {false, true})
      for (int64_t maxOut : {-1, 0, 1, 3, 1000})
        for (float iou : {0.f, 0.3f, 0.5f, 1.f})
          for (int thr = 0; thr < 3; ++thr) {
            const NmsCase c{dims[0], dims[1], dims[2], center, maxOut, iou, thr > 0, thr == 1 ? 0.2f : 0.5f};
            Tensor boxes, scores;
            makeInputs(c, seed++, &boxes, &scores);
            NmsCase expectedCase = c;
            expectedCase.maxOut = std::max<int64_t>(c.maxOut, 0);
            const Tensor expected = nmsReference(boxes, scores, expectedCase);
            const std::string what = shapeToString(scores.shape()) + (center ? " center" : " corners") + " max " +
                                     std::to_string(maxOut) + " iou " + std::to_string(iou) + " score threshold " +
                                     (c.hasScoreThreshold ? std::to_string(c.scoreThreshold) : "none");
            OpRun r = runOp("NonMaxSuppression", nmsInputs(boxes, scores, c), centerAttr(center), 1, BackendType::kCPU,
                            {}, 11);
            ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
            expectSameBytes(r.outputs[0], expected, what);
          }
}

TEST(NonMaxSuppressionOp, IdenticalAndZeroAreaBoxes) {
  // Ten identical boxes with equal scores: only the first survives at any iou below 1; at
  // iou 1 none suppresses another (IoU 1 is not > 1).
  Tensor same = Tensor::hostAllocate({1, 10, 4}, DataType::kF32);
  for (int64_t i = 0; i < 10; ++i) std::copy_n(std::vector<float>{0, 0, 1, 1}.data(), 4, same.data<float>() + 4 * i);
  const Tensor flat = tensorFrom({1, 1, 10}, std::vector<float>(10, 0.9f));
  for (float iou : {0.f, 0.5f, 0.99f, 1.f}) {
    OpRun r = runOp("NonMaxSuppression", {same, flat, tensorFromInts({1}, {4}), f32Scalar(iou)}, {}, 1,
                    BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    const Tensor expected = iou < 1 ? tensorFromInts({1, 3}, {0, 0, 0})
                                    : tensorFromInts({4, 3}, {0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3});
    expectSameBytes(r.outputs[0], expected, "identical boxes, iou " + std::to_string(iou));
  }
  // Zero-area boxes (a point, a line) never suppress nor are suppressed, even at iou 0.
  const Tensor degenerate = tensorFrom({1, 3, 4}, {1, 1, 1, 1, 0, 0, 0, 2, 0, 0, 2, 2});
  OpRun r = runOp("NonMaxSuppression", {degenerate, tensorFrom({1, 1, 3}, {0.3f, 0.2f, 0.1f}),
                                        tensorFromInts({1}, {10}), f32Scalar(0.f)},
                  {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], tensorFromInts({3, 3}, {0, 0, 0, 0, 0, 1, 0, 0, 2}), "zero-area boxes");
  // The scores threshold is strict: a score equal to it is not a candidate.
  r = runOp("NonMaxSuppression", {degenerate, tensorFrom({1, 1, 3}, {0.3f, 0.2f, 0.1f}), tensorFromInts({1}, {10}),
                                  f32Scalar(0.f), f32Scalar(0.2f)},
            {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], tensorFromInts({1, 3}, {0, 0, 0}), "score threshold 0.2");
}

// Every node of `g` ran (none folded); `op` on the CPU, Relu and Neg on `b`.
void expectStagedPlacement(const PlacementReport& r, const Graph& g, const std::string& op, BackendType b) {
  ASSERT_EQ(r.nodes.size(), g.nodes.size());
  for (const auto& n : r.nodes) {
    EXPECT_FALSE(n.folded) << n.node;
    if (n.opType == op) EXPECT_EQ(n.backend, BackendType::kCPU) << n.node;
    if (n.opType == "Relu" || n.opType == "Neg") EXPECT_EQ(n.backend, b) << n.node << " " << backendTypeName(b);
  }
}

// boxes -> Relu, scores -> Sigmoid -> NonMaxSuppression -> Cast f32 -> Neg: the graph runs in
// stages around NonMaxSuppression; the control inputs are constants.
TEST(NonMaxSuppressionOp, InsideAGraphAfterComputedInputs) {
  GraphBuilder gb;
  const std::string boxes = gb.input("boxes", DataType::kF32, {-1, -1, 4});
  const std::string scores = gb.input("scores", DataType::kF32, {-1, -1, -1});
  Attributes cast;
  cast.setInt("to", 1);
  const std::string selected =
      gb.op1("NonMaxSuppression", {gb.op1("Relu", {boxes}), gb.op1("Sigmoid", {scores}),
                                   gb.constant("max", tensorFromInts({1}, {3})), gb.constant("iou", f32Scalar(0.4f)),
                                   gb.constant("thr", f32Scalar(0.5f))});
  gb.output(gb.op1("Neg", {gb.op1("Cast", {selected}, cast)}));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  for (BackendType backend : availableBackends()) {
    const std::string where = backendTypeName(backend);
    SessionOptions o;
    o.backends = {backend};
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(g, o, &s).isOk()) << where;
    uint32_t seed = 100;
    for (int cycle = 0; cycle < 2; ++cycle)
      for (const auto& dims : std::vector<std::vector<int64_t>>{{1, 1, 5}, {2, 3, 9}, {1, 2, 1}}) {
        const NmsCase c{dims[0], dims[1], dims[2], false, 3, 0.4f, true, 0.5f};
        Tensor b, sc;
        makeInputs(c, seed++, &b, &sc);
        for (int64_t i = 0; i < sc.elementCount(); ++i) sc.data<float>()[i] -= 0.45f;  // about half under 0.5 after Sigmoid
        std::map<std::string, Tensor> outs;
        const Status st = s->run({{"boxes", b}, {"scores", sc}}, &outs);
        ASSERT_TRUE(st.isOk()) << where << ": " << st.message();
        Tensor sig = Tensor::hostAllocate(sc.shape(), DataType::kF32);
        for (int64_t i = 0; i < sc.elementCount(); ++i) sig.data<float>()[i] = 1.f / (1.f + std::exp(-sc.data<float>()[i]));
        const Tensor expected = nmsReference(b, sig, c);
        Tensor negated = Tensor::hostAllocate(expected.shape(), DataType::kF32);
        for (int64_t i = 0; i < expected.elementCount(); ++i)
          negated.data<float>()[i] = -static_cast<float>(expected.data<int64_t>()[i]);
        // A GPU's Sigmoid may differ in the last bits, but equal scores stay equal and none is
        // near the 0.5 threshold (sigmoid(+-0.05) at the closest), so the selection is exact.
        expectClose(outs.begin()->second, negated, 0, 0, where + " " + shapeToString(sc.shape()));
      }
    expectStagedPlacement(s->report(), *g, "NonMaxSuppression", backend);
  }
}

TEST(NonMaxSuppressionOp, ConstantInputsFold) {
  const NmsCase c{2, 2, 6, true, 2, 0.3f, false, 0.f};
  Tensor boxes, scores;
  makeInputs(c, 7, &boxes, &scores);
  OpRun r = runOp("NonMaxSuppression", nmsInputs(boxes, scores, c), centerAttr(true), 1, BackendType::kCPU,
                  {true, true, true, true});
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_TRUE(r.report.nodes[0].folded);
  expectSameBytes(r.outputs[0], nmsReference(boxes, scores, c), "folded");
}

TEST(NonMaxSuppressionOp, BadInputsFailNamingTheNode) {
  auto expectError = [](const OpRun& r, const std::string& cause) {
    ASSERT_FALSE(r.status.isOk()) << cause;
    EXPECT_NE(r.status.message().find("NonMaxSuppression 'op'"), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find(cause), std::string::npos) << r.status.message();
  };
  const Tensor boxes = randomTensor({2, 5, 4}, 1), scores = randomTensor({2, 3, 5}, 2);
  const Tensor maxOut = tensorFromInts({1}, {2});
  expectError(runOp("NonMaxSuppression", {randomTensor({2, 5, 3}, 1), scores, maxOut}, {}, 1, BackendType::kCPU),
              "[batch, spatial, 4]");
  expectError(runOp("NonMaxSuppression", {boxes, randomTensor({2, 3, 6}, 2), maxOut}, {}, 1, BackendType::kCPU),
              "[batch, classes, spatial]");
  expectError(runOp("NonMaxSuppression", {boxes, randomTensor({1, 3, 5}, 2), maxOut}, {}, 1, BackendType::kCPU),
              "[batch, classes, spatial]");
  expectError(runOp("NonMaxSuppression", {boxes, randomTensor({2, 5}, 2), maxOut}, {}, 1, BackendType::kCPU),
              "[batch, classes, spatial]");
  expectError(runOp("NonMaxSuppression", {boxes, scores, f32Scalar(2)}, {}, 1, BackendType::kCPU),
              "max_output_boxes_per_class");
  expectError(runOp("NonMaxSuppression", {boxes, scores, tensorFromInts({2}, {1, 2})}, {}, 1, BackendType::kCPU),
              "max_output_boxes_per_class");
  expectError(runOp("NonMaxSuppression", {boxes, scores, maxOut, f32Scalar(1.5f)}, {}, 1, BackendType::kCPU),
              "iou_threshold");
  expectError(runOp("NonMaxSuppression", {boxes, scores, maxOut, f32Scalar(-0.1f)}, {}, 1, BackendType::kCPU),
              "iou_threshold");
  expectError(runOp("NonMaxSuppression", {boxes, scores, maxOut, f32Scalar(0.5f), tensorFromInts({1}, {0})}, {}, 1,
                    BackendType::kCPU),
              "score_threshold");
  Attributes bad;
  bad.setInt("center_point_box", 2);
  expectError(runOp("NonMaxSuppression", {boxes, scores, maxOut}, bad, 1, BackendType::kCPU), "center_point_box");
  Tensor f64 = Tensor::hostAllocate({2, 5, 4}, DataType::kF64);
  expectError(runOp("NonMaxSuppression", {f64, scores, maxOut}, {}, 1, BackendType::kCPU), "must be f32");
}

}  // namespace
}  // namespace test
}  // namespace tessera
