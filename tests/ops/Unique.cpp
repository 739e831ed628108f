// Unique against a naive reference (deduplication by linear search, then ordering): every
// axis (negative ones too) and flattened, sorted 0 and 1, duplicates and slices sharing
// prefixes, six dtypes, outputs omitted, NaN and signed zeros as numpy; inside a graph after
// a computed input (staged) and on a constant (folded); bad inputs fail naming the node.
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

struct UniqueResult {
  Tensor y, indices, inverse, counts;
};

double valueAt(const Tensor& t, int64_t i) {
  Tensor one = Tensor::hostAllocate({1}, DataType::kF64);
  Tensor src = Tensor::hostWrap(t.data<char>() + i * dataTypeSize(t.dtype()), {1}, t.dtype());
  EXPECT_TRUE(convertDataType(src, one));
  return one.data<double>()[0];
}

// numpy.unique, naively. Slices along `axis` (or single elements when flattened).
UniqueResult uniqueReference(const Tensor& x, bool hasAxis, int64_t axis, bool sorted) {
  const Shape& shape = x.shape();
  const int a = hasAxis ? static_cast<int>(axis < 0 ? axis + x.rank() : axis) : 0;
  const int64_t n = hasAxis ? shape[a] : x.elementCount();
  std::vector<std::vector<double>> slices(static_cast<size_t>(n));
  for (int64_t f = 0; f < x.elementCount(); ++f) {
    const int64_t j = hasAxis ? unravelIndex(f, shape)[a] : f;
    slices[j].push_back(valueAt(x, f));  // row-major order of the other coordinates
  }
  auto same = [&](const std::vector<double>& p, const std::vector<double>& q) {
    for (size_t k = 0; k < p.size(); ++k)
      if (!(p[k] == q[k]) && (hasAxis || !(std::isnan(p[k]) && std::isnan(q[k])))) return false;
    return true;
  };
  std::vector<int64_t> first, count, inverse;  // groups in order of first occurrence
  for (int64_t i = 0; i < n; ++i) {
    size_t g = 0;
    while (g < first.size() && !same(slices[first[g]], slices[i])) ++g;
    if (g == first.size()) first.push_back(i), count.push_back(0);
    ++count[g];
    inverse.push_back(static_cast<int64_t>(g));
  }
  std::vector<int64_t> order(first.size());  // order[p]: the group at position p
  for (size_t g = 0; g < order.size(); ++g) order[g] = static_cast<int64_t>(g);
  if (sorted) {
    auto before = [&](int64_t g, int64_t h) {  // lexicographic, NaN after every number
      const std::vector<double>&p = slices[first[g]], &q = slices[first[h]];
      for (size_t k = 0; k < p.size(); ++k) {
        if (std::isnan(p[k]) != std::isnan(q[k])) return std::isnan(q[k]);
        if (p[k] < q[k]) return true;
        if (q[k] < p[k]) return false;
      }
      return false;
    };
    std::stable_sort(order.begin(), order.end(), before);
  }
  std::vector<int64_t> positionOf(order.size());
  for (size_t p = 0; p < order.size(); ++p) positionOf[order[p]] = static_cast<int64_t>(p);
  const int64_t u = static_cast<int64_t>(order.size());
  UniqueResult r;
  std::vector<int64_t> idx, cnt, inv;
  for (int64_t g : order) idx.push_back(first[g]), cnt.push_back(count[g]);
  for (int64_t g : inverse) inv.push_back(positionOf[g]);
  r.indices = tensorFromInts({u}, idx);
  r.counts = tensorFromInts({u}, cnt);
  r.inverse = tensorFromInts({n}, inv);
  if (!hasAxis) {
    r.y = movedReference(x, {u}, [&](const std::vector<int64_t>& at) { return idx[at[0]]; });
  } else {
    Shape yShape = shape;
    yShape[a] = u;
    r.y = movedReference(x, yShape, [&](std::vector<int64_t> at) {
      at[a] = idx[at[a]];
      return ravelIndex(at, shape);
    });
  }
  return r;
}

void expectResult(const std::vector<Tensor>& outs, const UniqueResult& e, const std::string& what) {
  ASSERT_EQ(outs.size(), 4u) << what;
  expectSameBytes(outs[0], e.y, what + " Y");
  expectSameBytes(outs[1], e.indices, what + " indices");
  expectSameBytes(outs[2], e.inverse, what + " inverse_indices");
  expectSameBytes(outs[3], e.counts, what + " counts");
}

// Data with repeated slices along `axis`: slice j is one of four prototypes of small values
// (so prototypes often share a prefix). Flattened (axis < 0 here), repeated small values.
Tensor repetitiveTensor(const Shape& shape, int axis, DataType dt, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t n = elementCount(shape);
  std::vector<int64_t> key(static_cast<size_t>(axis >= 0 ? shape[axis] : 0));
  for (auto& k : key) k = rng() % 4;
  std::vector<int64_t> proto(static_cast<size_t>(4 * n));
  for (auto& v : proto) v = rng() % 3;
  Tensor f = Tensor::hostAllocate(shape, DataType::kF64);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = axis >= 0 ? proto[key[unravelIndex(i, shape)[axis]] * n + ravelIndex([&] {
                        std::vector<int64_t> at = unravelIndex(i, shape);
                        at[axis] = 0;
                        return at;
                      }(), shape)]
                                : static_cast<int64_t>(rng() % 5);
    f.data<double>()[i] = dt == DataType::kBool ? v % 2 : dt == DataType::kU8 ? v * 3 : isFloat(dt) ? v * 1.5 - 1 : v * 3 - 2;
  }
  Tensor t = Tensor::hostAllocate(shape, dt);
  EXPECT_TRUE(convertDataType(f, t));
  return t;
}

TEST(UniqueOp, EveryAxisSortedAndDtypeAgainstNaive) {
  uint32_t seed = 1;
  for (const Shape& shape : {Shape{7}, Shape{6, 4}, Shape{3, 5, 2}, Shape{2, 3, 1, 5}}) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    for (DataType dt : {DataType::kF32, DataType::kF64, DataType::kI64, DataType::kI32, DataType::kU8, DataType::kBool})
      for (int64_t axis = -rank; axis <= rank; ++axis) {
        const bool hasAxis = axis < rank;  // axis == rank: no axis attribute (flattened)
        const Tensor x = repetitiveTensor(shape, hasAxis ? static_cast<int>(axis < 0 ? axis + rank : axis) : -1, dt, seed++);
        for (int sorted : {0, 1}) {
          Attributes attrs;
          if (hasAxis) attrs.setInt("axis", axis);
          attrs.setInt("sorted", sorted);
          const std::string what = shapeToString(shape) + " " + dataTypeName(dt) +
                                   (hasAxis ? " axis " + std::to_string(axis) : " flattened") + " sorted " +
                                   std::to_string(sorted);
          OpRun r = runOp("Unique", {x}, attrs, 4, BackendType::kCPU);
          ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
          EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
          expectResult(r.outputs, uniqueReference(x, hasAxis, axis, sorted), what);
        }
      }
  }
}

TEST(UniqueOp, EmptyAndSingleInputs) {
  for (const Shape& shape : {Shape{0}, Shape{1}, Shape{}, Shape{1, 1}}) {
    const Tensor x = randomTensor(shape, 3);
    OpRun r = runOp("Unique", {x}, {}, 4, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << shapeToString(shape) << ": " << r.status.message();
    expectResult(r.outputs, uniqueReference(x, false, 0, true), shapeToString(shape));
  }
}

TEST(UniqueOp, NaNAndSignedZerosAsNumpy) {
  const Tensor x = tensorFrom({6}, {NAN, 1, NAN, 0.f, -0.f, 1});
  OpRun r = runOp("Unique", {x}, {}, 4, BackendType::kCPU);  // numpy: NaNs are one value, last
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], tensorFrom({3}, {0.f, 1, NAN}), "Y");
  expectSameBytes(r.outputs[1], tensorFromInts({3}, {3, 1, 0}), "indices");
  expectSameBytes(r.outputs[2], tensorFromInts({6}, {2, 1, 2, 0, 0, 1}), "inverse");
  expectSameBytes(r.outputs[3], tensorFromInts({3}, {2, 2, 2}), "counts");
  Attributes unsorted;
  unsorted.setInt("sorted", 0);
  r = runOp("Unique", {tensorFrom({4}, {-0.f, NAN, 0.f, NAN})}, unsorted, 4, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], tensorFrom({2}, {-0.f, NAN}), "Y keeps the first zero");
  expectSameBytes(r.outputs[3], tensorFromInts({2}, {2, 2}), "counts");
  // Along an axis a slice holding a NaN equals no other; NaN sorts last.
  Attributes axis0;
  axis0.setInt("axis", 0);
  const Tensor rows = tensorFrom({4, 2}, {NAN, 1, NAN, 1, 0, 2, NAN, 0});
  r = runOp("Unique", {rows}, axis0, 4, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], tensorFrom({4, 2}, {0, 2, NAN, 0, NAN, 1, NAN, 1}), "rows");
  expectSameBytes(r.outputs[1], tensorFromInts({4}, {2, 3, 0, 1}), "row indices");
  expectSameBytes(r.outputs[2], tensorFromInts({4}, {2, 3, 0, 1}), "row inverse");
  expectResult(r.outputs, uniqueReference(rows, true, 0, true), "reference agrees");
}

// Outputs other than Y omitted (empty names), in every combination.
TEST(UniqueOp, OutputsOmitted) {
  const Tensor x = repetitiveTensor({5, 3}, 0, DataType::kF32, 9);
  for (int axis : {-1, 0}) {
    const UniqueResult e = uniqueReference(x, axis >= 0, axis, true);
    const std::vector<Tensor> expected = {e.y, e.indices, e.inverse, e.counts};
    for (int mask = 0; mask < 8; ++mask)
      for (bool trailing : {false, true}) {  // omitted trailing outputs: empty names or absent
        auto g = std::make_shared<Graph>();
        Node n;
        n.opType = "Unique";
        n.name = "op";
        n.opset = 11;
        if (axis >= 0) n.attrs.setInt("axis", axis);
        n.inputs = {"x"};
        g->inputs.push_back({});
        g->inputs.back().name = "x";
        g->inputs.back().dtype = DataType::kF32;
        std::vector<int> named = {0};
        n.outputs = {"out0"};
        for (int i = 1; i < 4; ++i) {
          n.outputs.push_back(mask >> (i - 1) & 1 ? "out" + std::to_string(i) : "");
          if (!n.outputs.back().empty()) named.push_back(i);
        }
        while (trailing && n.outputs.back().empty()) n.outputs.pop_back();
        for (int i : named) {
          g->outputs.push_back({});
          g->outputs.back().name = "out" + std::to_string(i);
        }
        g->nodes.push_back(n);
        ASSERT_TRUE(g->validate().isOk());
        std::unique_ptr<Session> s;
        ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
        std::map<std::string, Tensor> outs;
        const Status st = s->run({{"x", x}}, &outs);
        const std::string what = "axis " + std::to_string(axis) + " mask " + std::to_string(mask);
        ASSERT_TRUE(st.isOk()) << what << ": " << st.message();
        ASSERT_EQ(outs.size(), named.size()) << what;
        for (int i : named) expectSameBytes(outs["out" + std::to_string(i)], expected[i], what + " output " + std::to_string(i));
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

// x -> Relu -> Unique -> Y -> Neg, counts -> Cast f32; inverse_indices is a graph output
// itself: the graph runs in stages around Unique, planned again per unique count.
TEST(UniqueOp, InsideAGraphAfterAComputedInput) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {-1});
  Attributes cast;
  cast.setInt("to", 1);
  const std::vector<std::string> u = gb.op("Unique", {gb.op1("Relu", {x})}, {}, 4);
  gb.output(gb.op1("Neg", {u[0]}));
  gb.output(u[2], DataType::kI64);
  gb.output(gb.op1("Cast", {u[3]}, cast));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  for (BackendType b : availableBackends()) {
    const std::string where = backendTypeName(b);
    SessionOptions o;
    o.backends = {b};
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(g, o, &s).isOk()) << where;
    const std::vector<std::vector<float>> inputs = {{3, -1, 3, 2, -5, 0}, {1, 1, 1}, {-1, 2}, {4, 2, 4, 2, 7}};
    for (int cycle = 0; cycle < 2; ++cycle)
      for (const auto& xv : inputs) {
        const int64_t n = static_cast<int64_t>(xv.size());
        std::map<std::string, Tensor> outs;
        const Status st = s->run({{"x", tensorFrom({n}, xv)}}, &outs);
        ASSERT_TRUE(st.isOk()) << where << ": " << st.message();
        std::vector<float> relu;
        for (float v : xv) relu.push_back(std::max(v, 0.f));
        const UniqueResult e = uniqueReference(tensorFrom({n}, relu), false, 0, true);
        Tensor negY = Tensor::hostAllocate(e.y.shape(), DataType::kF32), counts = Tensor::hostAllocate(e.counts.shape(), DataType::kF32);
        for (int64_t i = 0; i < e.y.elementCount(); ++i) negY.data<float>()[i] = -e.y.data<float>()[i];
        for (int64_t i = 0; i < e.counts.elementCount(); ++i) counts.data<float>()[i] = static_cast<float>(e.counts.data<int64_t>()[i]);
        expectClose(outs[g->outputs[0].name], negY, 0, 0, where + " -Y");
        expectSameBytes(outs[g->outputs[1].name], e.inverse, where + " inverse_indices");
        expectClose(outs[g->outputs[2].name], counts, 0, 0, where + " counts");
      }
    expectStagedPlacement(s->report(), *g, "Unique", b);
  }
}

TEST(UniqueOp, ConstantInputFoldsInAGraph) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {3});
  const std::string y = gb.op("Unique", {gb.constant("c", tensorFrom({5}, {3, 1, 3, 2, 1}))}, {}, 1)[0];
  gb.output(gb.op1("Add", {x, y}));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  std::map<std::string, Tensor> outs;
  ASSERT_TRUE(s->run({{"x", tensorFrom({3}, {10, 20, 30})}}, &outs).isOk());
  expectClose(outs.begin()->second, tensorFrom({3}, {11, 22, 33}), 0, 0, "x + [1, 2, 3]");
  EXPECT_TRUE(s->report().nodes[0].folded);
}

TEST(UniqueOp, BadInputsFailNamingTheNode) {
  auto expectError = [](const OpRun& r, const std::string& cause) {
    ASSERT_FALSE(r.status.isOk()) << cause;
    EXPECT_NE(r.status.message().find("Unique 'op'"), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find(cause), std::string::npos) << r.status.message();
  };
  const Tensor x = randomTensor({3, 4}, 1);
  for (int64_t axis : {2, -3}) {
    Attributes a;
    a.setInt("axis", axis);
    expectError(runOp("Unique", {x}, a, 4, BackendType::kCPU), "out of range");
    expectError(runOp("Unique", {x}, a, 4, BackendType::kCPU, {true}), "out of range");
  }
  Attributes a0;
  a0.setInt("axis", 0);
  expectError(runOp("Unique", {tensorFrom({}, {1})}, a0, 1, BackendType::kCPU), "out of range");
  Attributes bad;
  bad.setInt("sorted", 2);
  expectError(runOp("Unique", {x}, bad, 1, BackendType::kCPU), "sorted");
}

}  // namespace
}  // namespace test
}  // namespace tessera
