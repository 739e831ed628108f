// Compress on every axis (negative ones too) and flattened, conditions shorter than the axis,
// all false and all true, five dtypes, against a naive reference; the condition fed at run time
// (the node runs in its own graph stage), constant (the shape is planned) or both inputs
// constant (folded); inside a graph after a computed input; bad inputs fail naming the node.
#include <algorithm>

#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {
namespace {

Tensor boolTensor(const std::vector<int>& values) {
  Tensor t = Tensor::hostAllocate({static_cast<int64_t>(values.size())}, DataType::kBool);
  for (size_t i = 0; i < values.size(); ++i) t.data<bool>()[i] = values[i] != 0;
  return t;
}

// numpy.compress, naively: output coordinate j on the axis is the j-th true entry.
Tensor compressReference(const Tensor& x, const std::vector<int>& cond, bool hasAxis, int64_t axis) {
  std::vector<int64_t> kept;
  for (size_t i = 0; i < cond.size(); ++i)
    if (cond[i]) kept.push_back(static_cast<int64_t>(i));
  const int64_t n = static_cast<int64_t>(kept.size());
  if (!hasAxis) return movedReference(x, {n}, [&](const std::vector<int64_t>& at) { return kept[at[0]]; });
  const int a = static_cast<int>(axis < 0 ? axis + x.rank() : axis);
  Shape outShape = x.shape();
  outShape[a] = n;
  return movedReference(x, outShape, [&](std::vector<int64_t> at) {
    at[a] = kept[at[a]];
    return ravelIndex(at, x.shape());
  });
}

// Conditions for an axis of `extent`: shorter, all false, all true, mixed, empty.
std::vector<std::vector<int>> conditionsFor(int64_t extent) {
  std::vector<std::vector<int>> c;
  c.push_back(std::vector<int>(static_cast<size_t>(extent), 0));
  c.push_back(std::vector<int>(static_cast<size_t>(extent), 1));
  std::vector<int> mixed, shorter;
  for (int64_t i = 0; i < extent; ++i) mixed.push_back(i % 3 != 1);
  for (int64_t i = 0; i + 2 < extent; ++i) shorter.push_back(i % 2 == 0);
  c.push_back(mixed);
  c.push_back(shorter);
  c.push_back({});
  return c;
}

TEST(CompressOp, EveryAxisConditionAndDtypeAgainstNaive) {
  for (const Shape& shape : {Shape{7}, Shape{3, 5}, Shape{2, 3, 1, 5}}) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    for (DataType dt : {DataType::kF32, DataType::kF64, DataType::kI64, DataType::kU8, DataType::kF16}) {
      const Tensor x = iotaTensor(shape, dt);
      for (int64_t axis = -rank; axis <= rank; ++axis) {
        const bool hasAxis = axis < rank;  // axis == rank: no axis attribute (flattened)
        Attributes attrs;
        if (hasAxis) attrs.setInt("axis", axis);
        const int64_t extent = hasAxis ? shape[axis < 0 ? axis + rank : axis] : elementCount(shape);
        for (const std::vector<int>& cond : conditionsFor(extent)) {
          const Tensor expected = compressReference(x, cond, hasAxis, axis);
          const std::string what = shapeToString(shape) + " " + dataTypeName(dt) +
                                   (hasAxis ? " axis " + std::to_string(axis) : " flattened") + " condition of " +
                                   std::to_string(cond.size());
          // Condition at run time (staged), constant (planned shape), both constant (folded).
          for (const std::vector<bool>& constant : {std::vector<bool>{}, {false, true}, {true, true}}) {
            OpRun r = runOp("Compress", {x, boolTensor(cond)}, attrs, 1, BackendType::kCPU, constant);
            ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
            ASSERT_EQ(r.report.nodes.size(), 1u);
            EXPECT_EQ(r.report.nodes[0].folded, constant.size() == 2 && constant[0]) << what;
            expectSameBytes(r.outputs[0], expected, what);
          }
        }
      }
    }
  }
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

// x -> Relu -> Compress(axis 0, condition = c > 0) -> Neg: the condition and the data are
// computed by earlier nodes, so the graph runs in stages around Compress.
TEST(CompressOp, InsideAGraphAfterComputedInputs) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {-1, 3});
  const std::string c = gb.input("c", DataType::kF32, {-1});
  Attributes axis0;
  axis0.setInt("axis", 0);
  const std::string cond = gb.op1("Greater", {c, gb.constant("zero", tensorFrom({}, {0.f}))});
  gb.output(gb.op1("Neg", {gb.op1("Compress", {gb.op1("Relu", {x}), cond}, axis0)}));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  for (BackendType b : availableBackends()) {
    const std::string where = backendTypeName(b);
    SessionOptions o;
    o.backends = {b};
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(g, o, &s).isOk()) << where;
    const std::vector<std::vector<float>> conds = {{1, -1, 2, 0, 3}, {-1, -1, -1, -1, -1}, {1, 1}, {0, 5, 0}};
    for (int cycle = 0; cycle < 2; ++cycle)
      for (const std::vector<float>& cv : conds) {
        const int64_t n = static_cast<int64_t>(cv.size());
        const Tensor xv = randomTensor({n, 3}, static_cast<uint32_t>(n));
        std::map<std::string, Tensor> outs;
        const Status st = s->run({{"x", xv}, {"c", tensorFrom({n}, cv)}}, &outs);
        ASSERT_TRUE(st.isOk()) << where << ": " << st.message();
        std::vector<int> keep;
        for (float v : cv) keep.push_back(v > 0);
        Tensor expected = compressReference(xv, keep, true, 0);
        for (int64_t i = 0; i < expected.elementCount(); ++i)
          expected.data<float>()[i] = -std::max(expected.data<float>()[i], 0.f);
        expectClose(outs.begin()->second, expected, 0, 0, where + " rows kept " + shapeToString(expected.shape()));
      }
    expectStagedPlacement(s->report(), *g, "Compress", b);
  }
}

// Compress of constants folds at planning; its consumer sees a constant.
TEST(CompressOp, ConstantInputsFoldInAGraph) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {2});
  const std::string picked = gb.op1("Compress", {gb.constant("data", tensorFrom({4}, {10, 20, 30, 40})),
                                                 gb.constant("cond", boolTensor({0, 1, 0, 1}))});
  gb.output(gb.op1("Add", {x, picked}));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  std::map<std::string, Tensor> outs;
  ASSERT_TRUE(s->run({{"x", tensorFrom({2}, {1, 2})}}, &outs).isOk());
  expectClose(outs.begin()->second, tensorFrom({2}, {21, 42}), 0, 0, "x + [20, 40]");
  EXPECT_TRUE(s->report().nodes[0].folded);
}

// Compress's output as a Reshape target (a value the later stage's planning needs), its data
// computed from constants only (folded in the stage before it).
TEST(CompressOp, StagesWithAFoldedInputAndAReshapeTargetAfter) {
  GraphBuilder gb;
  const std::string c = gb.input("c", DataType::kBool, {-1});
  const std::string target = gb.op1("Compress", {gb.op1("Abs", {gb.constant("dims", tensorFromInts({3}, {-2, 6, -3}))}), c});
  gb.output(gb.op1("Reshape", {gb.op1("Neg", {gb.input("x", DataType::kF32, {6})}), target}));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  const Tensor x = randomTensor({6}, 4);
  Tensor negX = Tensor::hostAllocate({6}, DataType::kF32);
  for (int64_t i = 0; i < 6; ++i) negX.data<float>()[i] = -x.data<float>()[i];
  for (int cycle = 0; cycle < 2; ++cycle)
    for (const auto& keep : std::vector<std::vector<int>>{{1, 0, 1}, {0, 1, 0}, {1}}) {
      std::map<std::string, Tensor> outs;
      const Status st = s->run({{"x", x}, {"c", boolTensor(keep)}}, &outs);
      if (keep.size() == 1) {  // target [2]: 6 elements do not fit
        EXPECT_FALSE(st.isOk());
        continue;
      }
      ASSERT_TRUE(st.isOk()) << st.message();
      Tensor expected = negX;
      expected.reshape(keep[0] ? Shape{2, 3} : Shape{6});
      expectClose(outs.begin()->second, expected, 0, 0, shapeToString(expected.shape()));
    }
  EXPECT_TRUE(s->report().nodes[0].folded);  // Abs of a constant
}

TEST(CompressOp, BadInputsFailNamingTheNode) {
  const Tensor x = randomTensor({3, 4}, 1);
  auto expectError = [](const OpRun& r, const std::string& cause) {
    ASSERT_FALSE(r.status.isOk()) << cause;
    EXPECT_NE(r.status.message().find("Compress 'op'"), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find(cause), std::string::npos) << r.status.message();
  };
  Attributes axis1;
  axis1.setInt("axis", 1);
  for (const std::vector<bool>& constant : {std::vector<bool>{}, {false, true}}) {
    expectError(runOp("Compress", {x, boolTensor({1, 0, 1, 0, 1})}, axis1, 1, BackendType::kCPU, constant), "longer");
    expectError(runOp("Compress", {x, boolTensor(std::vector<int>(13, 1))}, {}, 1, BackendType::kCPU, constant),
                "longer");
  }
  Attributes axis2;
  axis2.setInt("axis", 2);
  expectError(runOp("Compress", {x, boolTensor({1})}, axis2, 1, BackendType::kCPU), "out of range");
  axis2.setInt("axis", -3);
  expectError(runOp("Compress", {x, boolTensor({1})}, axis2, 1, BackendType::kCPU), "out of range");
  expectError(runOp("Compress", {x, tensorFromInts({2}, {1, 0})}, axis1, 1, BackendType::kCPU), "1-D bool");
  Tensor cond2d = Tensor::hostAllocate({1, 2}, DataType::kBool);
  cond2d.data<bool>()[0] = cond2d.data<bool>()[1] = true;
  expectError(runOp("Compress", {x, cond2d}, axis1, 1, BackendType::kCPU), "1-D bool");
}

}  // namespace
}  // namespace test
}  // namespace tessera
