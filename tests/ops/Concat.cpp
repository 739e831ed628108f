// Concat and Split against naive index references, on every backend present.
#include <gtest/gtest.h>

#include <cmath>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor concatReference(const std::vector<Tensor>& ins, int64_t axis) {
  Shape out = ins[0].shape();
  out[axis] = 0;
  for (const Tensor& t : ins) out[axis] += t.shape()[axis];
  Tensor r = Tensor::hostAllocate(out, ins[0].dtype());
  const size_t elem = dataTypeSize(ins[0].dtype());
  for (int64_t o = 0; o < r.elementCount(); ++o) {
    std::vector<int64_t> idx = unravelIndex(o, out);
    size_t which = 0;
    while (idx[axis] >= ins[which].shape()[axis]) idx[axis] -= ins[which++].shape()[axis];
    std::memcpy(r.data<char>() + o * elem,
                ins[which].data<char>() + ravelIndex(idx, ins[which].shape()) * elem, elem);
  }
  return r;
}

// The graph gb builds, in a Session of the default options (the CPU), run on input x.
void runOnDefaultSession(GraphBuilder& gb, const Tensor& x, std::shared_ptr<Graph>* graph, std::unique_ptr<Session>* s,
                      std::map<std::string, Tensor>* outs) {
  ASSERT_TRUE(gb.build(graph).isOk());
  ASSERT_TRUE(Session::create(*graph, SessionOptions{}, s).isOk());
  const Status st = (*s)->run({{"x", x}}, outs);
  ASSERT_TRUE(st.isOk()) << st.message();
}

TEST(ConcatOp, EveryAxisAndDtype) {
  const std::vector<DataType> dtypes = {DataType::kF32, DataType::kI64, DataType::kU8,
                                        DataType::kF16};
  const Shape base = {3, 5, 7, 1};
  for (BackendType b : availableBackends()) {
    for (DataType dt : dtypes) {
      for (int64_t axis = -4; axis < 4; ++axis) {
        const int64_t a = axis < 0 ? axis + 4 : axis;
        std::vector<Tensor> ins;
        for (int64_t extent : {1, 3, 0, 13}) {
          Shape s = base;
          s[a] = extent;
          ins.push_back(iotaTensor(s, dt));
        }
        Attributes attrs;
        attrs.setInt("axis", axis);
        OpRun r = runOp("Concat", ins, attrs, 1, b);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectSameBytes(r.outputs[0], concatReference(ins, a),
                        std::string(backendTypeName(b)) + " " + dataTypeName(dt) + " axis " +
                            std::to_string(axis));
      }
    }
  }
}

// Channel concatenation of conv outputs (NC4HW4 on the CPU) stays packed: whole blocks (8,
// 4 channels) then a partial one (6 channels, its padding lanes holding Reciprocal's inf);
// no conversion around Concat, the values and a consumer of the packed result exact.
TEST(ConcatOp, ChannelsOfPackedTensors) {
  const Tensor x = randomTensor({2, 3, 5, 7}, 1);
  GraphBuilder gb;
  const std::string in = gb.input("x", DataType::kF32, {2, 3, 5, 7});
  const std::string a = gb.op1("Conv", {in, gb.constant("wa", randomTensor({8, 3, 1, 1}, 2))});
  const std::string b = gb.op1("Conv", {in, gb.constant("wb", randomTensor({4, 3, 1, 1}, 3))});
  const std::string c = gb.op1("Reciprocal", {gb.op1("Conv", {in, gb.constant("wc", randomTensor({6, 3, 1, 1}, 4))})});
  Attributes axis;
  axis.setInt("axis", 1);
  const std::string cat = gb.op1("Concat", {a, b, c}, axis);
  for (const std::string& o : {a, b, c, cat}) gb.output(o);
  gb.output(gb.op1("GlobalAveragePool", {cat}));
  std::shared_ptr<Graph> graph;
  std::unique_ptr<Session> s;
  std::map<std::string, Tensor> outs;
  ASSERT_NO_FATAL_FAILURE(runOnDefaultSession(gb, x, &graph, &s, &outs));
  const Tensor expected = concatReference({outs[a], outs[b], outs[c]}, 1);
  expectSameBytes(outs[cat], expected, "packed concat");
  // The pooled concat: per channel means of the expected concat.
  const Tensor& pooled = outs[graph->outputs[4].name];
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t ch = 0; ch < 18; ++ch) {
      double sum = 0;
      for (int64_t i = 0; i < 35; ++i) sum += expected.data<float>()[(n * 18 + ch) * 35 + i];
      EXPECT_NEAR(pooled.data<float>()[n * 18 + ch], sum / 35, 1e-4 + 1e-4 * std::abs(sum / 35));
    }
  // Copies: the five outputs unpacked; none into or out of Concat. (x is packed once for the
  // convs, or read as it is where they take 3-channel input directly: ConvFewChannels.)
  size_t notOfX = 0;
  for (const std::string& c : s->report().conversions) notOfX += c.rfind("copy '" + in + "'", 0) == 0 ? 0 : 1;
  EXPECT_EQ(notOfX, 5u) << s->report().toString();
}

// Copies of megabytes with few outer rows (batch 1 and 2 along channels) go in pieces over
// the pool (backends/cpu/CopyPieces.hpp), of uneven sizes; many rows (EveryAxisAndDtype) row
// by row.
TEST(ConcatOp, LargeCopiesInPieces) {
  for (BackendType b : availableBackends()) {
    for (int64_t batch : {1, 2}) {
      const std::vector<Tensor> ins = {randomTensor({batch, 5, 151, 301}, 1), randomTensor({batch, 3, 151, 301}, 2),
                                       randomTensor({batch, 1, 151, 301}, 3)};
      Attributes axis;
      axis.setInt("axis", 1);
      OpRun r = runOp("Concat", ins, axis, 1, b);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectSameBytes(r.outputs[0], concatReference(ins, 1),
                      std::string(backendTypeName(b)) + " batch " + std::to_string(batch));
    }
  }
}

TEST(ConcatOp, RejectsMismatchedShapes) {
  Attributes attrs;
  attrs.setInt("axis", 1);
  OpRun r = runOp("Concat", {randomTensor({2, 3, 4}, 1), randomTensor({2, 3, 5}, 2)}, attrs, 1,
                  BackendType::kCPU);
  EXPECT_FALSE(r.status.isOk());
  r = runOp("Concat", {randomTensor({2, 3}, 1)}, attrs, 1, BackendType::kCPU);
  EXPECT_TRUE(r.status.isOk());
  attrs.setInt("axis", 2);
  r = runOp("Concat", {randomTensor({2, 3}, 1)}, attrs, 1, BackendType::kCPU);
  EXPECT_FALSE(r.status.isOk());
}

void checkSplit(const Tensor& x, int64_t axis, const std::vector<int64_t>& sizes,
                const Attributes& attrs, const std::vector<Tensor>& extraInputs, int opset,
                const std::string& what) {
  const int64_t a = axis < 0 ? axis + x.rank() : axis;
  std::vector<Tensor> inputs = {x};
  inputs.insert(inputs.end(), extraInputs.begin(), extraInputs.end());
  std::vector<bool> constant(inputs.size(), true);
  constant[0] = false;
  for (BackendType b : availableBackends()) {
    OpRun r = runOp("Split", inputs, attrs, static_cast<int>(sizes.size()), b, constant, opset);
    ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
    int64_t start = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      Shape s = x.shape();
      s[a] = sizes[i];
      const Tensor expected = movedReference(x, s, [&](std::vector<int64_t> idx) {
        idx[a] += start;
        return ravelIndex(idx, x.shape());
      });
      expectSameBytes(r.outputs[i], expected, what + " output " + std::to_string(i));
      start += sizes[i];
    }
  }
}

TEST(SplitOp, EqualParts) {
  Attributes attrs;
  checkSplit(iotaTensor({6, 5}, DataType::kF32), 0, {2, 2, 2}, attrs, {}, 13, "default axis");
  attrs.setInt("axis", -1);
  checkSplit(iotaTensor({3, 1, 15}, DataType::kI64), -1, {5, 5, 5}, attrs, {}, 13, "last axis");
}

TEST(SplitOp, SizesFromAttributeBeforeOpset13) {
  Attributes attrs;
  attrs.setInt("axis", 1);
  attrs.setInts("split", {1, 0, 4, 8});
  checkSplit(iotaTensor({3, 13, 5}, DataType::kF32), 1, {1, 0, 4, 8}, attrs, {}, 11, "opset 11");
}

TEST(SplitOp, SizesFromInputFromOpset13) {
  Attributes attrs;
  attrs.setInt("axis", 2);
  checkSplit(iotaTensor({1, 3, 7, 2}, DataType::kU8), 2, {3, 4}, attrs,
             {tensorFromInts({2}, {3, 4})}, 13, "opset 13");
}

TEST(SplitOp, NumOutputsOpset18) {
  Attributes attrs;
  attrs.setInt("num_outputs", 3);
  checkSplit(iotaTensor({7, 3}, DataType::kF32), 0, {3, 3, 1}, attrs, {}, 18, "num_outputs");
}

// A channel split of a conv's output (NC4HW4 on the CPU) stays packed where every part but the
// last has whole blocks: no conversion around Split, batch 2, odd planes. The last part (6
// channels) is the input's last blocks, padding lanes included (Split zeroes them, as Concat
// does): a 1x1 conv of it matches the naive sum.
TEST(SplitOp, ChannelsOfPackedTensors) {
  const Tensor x = randomTensor({2, 3, 5, 7}, 1), w = randomTensor({5, 6, 1, 1}, 3);
  GraphBuilder gb;
  const std::string in = gb.input("x", DataType::kF32, {2, 3, 5, 7});
  const std::string r = gb.op1("Reciprocal", {gb.op1("Conv", {in, gb.constant("w", randomTensor({18, 3, 1, 1}, 2))})});
  Attributes axis;
  axis.setInt("axis", 1);
  const std::vector<std::string> parts = gb.op("Split", {r, gb.constant("split", tensorFromInts({3}, {8, 4, 6}))}, axis, 3);
  const std::string q = gb.op1("Conv", {parts[2], gb.constant("wq", w)});
  for (const std::string& o : {r, parts[0], parts[1], parts[2], q}) gb.output(o);
  std::shared_ptr<Graph> graph;
  std::unique_ptr<Session> s;
  std::map<std::string, Tensor> outs;
  ASSERT_NO_FATAL_FAILURE(runOnDefaultSession(gb, x, &graph, &s, &outs));
  const Tensor& whole = outs[r];
  int64_t start = 0;
  for (int i = 0; i < 3; ++i) {
    const int64_t size = outs[parts[i]].shape()[1];
    const Tensor expected = movedReference(whole, {2, size, 5, 7}, [&](std::vector<int64_t> idx) {
      idx[1] += start;
      return ravelIndex(idx, whole.shape());
    });
    expectSameBytes(outs[parts[i]], expected, "packed split part " + std::to_string(i));
    start += size;
  }
  const Tensor& p2 = outs[parts[2]];
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t m = 0; m < 5; ++m)
      for (int64_t i = 0; i < 35; ++i) {
        double sum = 0;
        for (int64_t c = 0; c < 6; ++c) sum += double(w.data<float>()[m * 6 + c]) * p2.data<float>()[(n * 6 + c) * 35 + i];
        const float got = outs[q].data<float>()[(n * 5 + m) * 35 + i];
        ASSERT_NEAR(got, sum, 1e-3 + 1e-4 * std::abs(sum)) << "n " << n << " m " << m << " pixel " << i;
      }
  // Copies: the five outputs unpacked; none into or out of Split.
  size_t notOfX = 0;
  for (const std::string& c : s->report().conversions) notOfX += c.rfind("copy '" + in + "'", 0) == 0 ? 0 : 1;
  EXPECT_EQ(notOfX, 5u) << s->report().toString();
}

// The mirror of ConcatOp.LargeCopiesInPieces.
TEST(SplitOp, LargeCopiesInPieces) {
  for (int64_t batch : {1, 2}) {
    Attributes attrs;
    attrs.setInt("axis", 1);
    checkSplit(randomTensor({batch, 13, 151, 301}, 4), 1, {4, 8, 1}, attrs, {tensorFromInts({3}, {4, 8, 1})}, 13,
               "batch " + std::to_string(batch));
  }
}

TEST(SplitOp, RejectsBadSizes) {
  Attributes attrs;
  OpRun r = runOp("Split", {randomTensor({7}, 1)}, attrs, 2, BackendType::kCPU);
  EXPECT_FALSE(r.status.isOk());  // 7 is not divisible into 2 equal parts
  r = runOp("Split", {randomTensor({7}, 1), tensorFromInts({2}, {3, 3})}, attrs, 2,
            BackendType::kCPU, {false, true});
  EXPECT_FALSE(r.status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
