// Add Sub Mul Div Pow Max Min Sum Mean against a naive broadcasting reference, over shapes
// that collapse differently (same shape, per-channel, scalar, both sides broadcast).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <random>

#include "support/OpTest.hpp"

namespace tessera {
namespace {

using test::expectClose;
using test::randomTensor;
using test::runOp;

// Offset in `in` (numpy-broadcast to `out`) of the output element with flat index i.
int64_t broadcastOffset(int64_t i, const Shape& out, const Shape& in) {
  int64_t offset = 0, stride = 1;
  const size_t pad = out.size() - in.size();
  for (size_t d = out.size(); d-- > 0;) {
    const int64_t idx = i % out[d];
    i /= out[d];
    if (d < pad) continue;
    const int64_t extent = in[d - pad];
    if (extent != 1) offset += idx * stride;
    stride *= extent;
  }
  return offset;
}

Shape broadcastAll(const std::vector<Tensor>& ts) {
  Shape s = ts[0].shape();
  for (const Tensor& t : ts) EXPECT_TRUE(broadcastShapes(s, t.shape(), &s));
  return s;
}

// Folds the inputs left to right with f, in double, broadcasting each to the output shape.
Tensor reference(const std::vector<Tensor>& ins, const std::function<double(double, double)>& f) {
  const Shape shape = broadcastAll(ins);
  std::vector<Tensor> wide;
  for (const Tensor& t : ins) {
    wide.push_back(Tensor::hostAllocate(t.shape(), DataType::kF64));
    convertDataType(t, wide.back());
  }
  Tensor out = Tensor::hostAllocate(shape, DataType::kF64);
  for (int64_t i = 0; i < out.elementCount(); ++i) {
    auto at = [&](const Tensor& t) {
      return t.data<double>()[broadcastOffset(i, shape, t.shape())];
    };
    double acc = at(wide[0]);
    for (size_t k = 1; k < wide.size(); ++k) acc = f(acc, at(wide[k]));
    out.data<double>()[i] = acc;
  }
  return out;
}

Tensor toType(const Tensor& t, DataType dtype) {
  Tensor out = Tensor::hostAllocate(t.shape(), dtype);
  EXPECT_TRUE(convertDataType(t, out));
  return out;
}

void checkOp(const std::string& op, const std::vector<Tensor>& ins,
             const std::function<double(double, double)>& f, double scale = 1.0) {
  test::OpRun r = runOp(op, ins, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << op << ": " << r.status.message();
  Tensor expected = reference(ins, f);
  for (int64_t i = 0; i < expected.elementCount(); ++i) expected.data<double>()[i] *= scale;
  std::string shapes;
  for (const Tensor& t : ins) shapes += " " + shapeToString(t.shape());
  expectClose(r.outputs[0], toType(expected, ins[0].dtype()), 1e-5, 1e-6, op + shapes);
}

const std::vector<std::pair<Shape, Shape>> kShapePairs = {
    {{3, 5, 7, 9}, {3, 5, 7, 9}},  // same shape: one span
    {{3, 13, 5, 7}, {13, 1, 1}},   // per-channel
    {{1, 3, 5, 7}, {1, 3, 1, 1}},  // per-channel, batch 1
    {{2, 1, 5}, {}},               // scalar
    {{1}, {4, 1, 3, 5}},           // scalar on the left, higher rank on the right
    {{1, 3, 1, 5}, {2, 1, 4, 1}},  // both sides broadcast
    {{5, 1}, {1, 6}},              // outer product
    {{3, 1, 7}, {3, 7}},           // middle axis
    {{2, 3, 4, 5, 6}, {5, 6}},     // trailing block
};

TEST(Binary, ArithmeticBroadcastsLikeNumpy) {
  uint32_t seed = 1;
  for (const auto& [sa, sb] : kShapePairs) {
    const Tensor a = randomTensor(sa, seed++, -2.f, 2.f);
    const Tensor b = randomTensor(sb, seed++, 0.5f, 2.f);  // no division by ~0
    checkOp("Add", {a, b}, [](double x, double y) { return x + y; });
    checkOp("Sub", {a, b}, [](double x, double y) { return x - y; });
    checkOp("Mul", {a, b}, [](double x, double y) { return x * y; });
    checkOp("Div", {a, b}, [](double x, double y) { return x / y; });
    checkOp("Max", {a, b}, [](double x, double y) { return std::max(x, y); });
    checkOp("Min", {a, b}, [](double x, double y) { return std::min(x, y); });
    checkOp("Pow", {b, a}, [](double x, double y) { return std::pow(x, y); });
  }
}

TEST(Binary, VariadicOpsFoldAllInputs) {
  const Tensor a = randomTensor({3, 1, 5}, 11);
  const Tensor b = randomTensor({4, 1}, 12);
  const Tensor c = randomTensor({1, 1, 5}, 13);
  auto add = [](double x, double y) { return x + y; };
  checkOp("Sum", {a, b, c}, add);
  checkOp("Mean", {a, b, c}, add, 1.0 / 3.0);
  checkOp("Max", {a, b, c}, [](double x, double y) { return std::max(x, y); });
  checkOp("Min", {a, b, c}, [](double x, double y) { return std::min(x, y); });
  checkOp("Sum", {a}, add);
  checkOp("Mean", {b}, add);
}

TEST(Binary, LargeSameShapeRunsThreaded) {
  const Tensor a = randomTensor({3, 13, 33, 35}, 21);
  const Tensor b = randomTensor({3, 13, 33, 35}, 22);
  const Tensor bias = randomTensor({1, 13, 1, 1}, 23);
  checkOp("Add", {a, b}, [](double x, double y) { return x + y; });
  checkOp("Mul", {a, bias}, [](double x, double y) { return x * y; });
  checkOp("Pow", {a, test::tensorFrom({}, {2.f})}, [](double x, double y) { return x * x; });
  // x^3 by multiplies (GELU's tanh form), negative bases included, the exponent a scalar or a
  // one-element tensor; x^3.5 still through powf (on |x|: a negative base gives NaN).
  checkOp("Pow", {a, test::tensorFrom({}, {3.f})}, [](double x, double) { return x * x * x; });
  checkOp("Pow", {a, test::tensorFrom({1}, {3.f})}, [](double x, double y) { return std::pow(x, y); });
  const Tensor positive = randomTensor({2, 13, 33, 35}, 24, 0.1f, 2.f);
  checkOp("Pow", {positive, test::tensorFrom({}, {3.5f})}, [](double x, double y) { return std::pow(x, y); });
}

TEST(Binary, IntegerTypes) {
  // Division truncates toward zero (ONNX's reference: true divide, then cast).
  const Tensor a = toType(test::tensorFromInts({2, 3}, {7, -7, 9, -9, 100, 5}), DataType::kI32);
  const Tensor b = toType(test::tensorFromInts({3}, {2, 2, -4}), DataType::kI32);
  checkOp("Div", {a, b}, [](double x, double y) { return std::trunc(x / y); });
  checkOp("Sub", {a, b}, [](double x, double y) { return x - y; });
  const Tensor c = toType(test::tensorFromInts({4}, {1, -5, 3, 8}), DataType::kI64);
  const Tensor d = toType(test::tensorFromInts({4}, {2, 7, -3, 8}), DataType::kI64);
  checkOp("Max", {c, d}, [](double x, double y) { return std::max(x, y); });
  checkOp("Min", {c, d}, [](double x, double y) { return std::min(x, y); });
  checkOp("Mul", {c, d}, [](double x, double y) { return x * y; });
  // uint8 wraps.
  const Tensor u = toType(test::tensorFromInts({3}, {200, 10, 255}), DataType::kU8);
  const Tensor v = toType(test::tensorFromInts({3}, {100, 3, 1}), DataType::kU8);
  test::OpRun r = runOp("Add", {u, v}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_EQ(r.outputs[0].data<uint8_t>()[0], 44);
  EXPECT_EQ(r.outputs[0].data<uint8_t>()[2], 0);
  // Integer division by zero does not trap.
  const Tensor z = toType(test::tensorFromInts({3}, {0, 0, 0}), DataType::kU8);
  r = runOp("Div", {u, z}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
}

TEST(Binary, PowMixedTypes) {
  const Tensor ib = toType(test::tensorFromInts({4}, {1, 2, 3, -2}), DataType::kI64);
  const Tensor fe = test::tensorFrom({4}, {4.f, 5.f, 0.5f, 3.f});
  // int base, float exponent: float result truncated, in the base's type.
  checkOp("Pow", {ib, fe}, [](double x, double y) { return std::trunc(std::pow(x, y)); });
  const Tensor ie = toType(test::tensorFromInts({4}, {0, 3, 4, 5}), DataType::kI32);
  checkOp("Pow", {toType(ib, DataType::kI32), ie},
          [](double x, double y) { return std::pow(x, y); });
  checkOp("Pow", {fe, toType(ie, DataType::kU64)},
          [](double x, double y) { return std::pow(x, y); });
}

TEST(Binary, HalfAndDoubleTypes) {
  const Tensor a = randomTensor({3, 5}, 31);
  const Tensor b = randomTensor({5}, 32);
  checkOp("Max", {toType(a, DataType::kF16), toType(b, DataType::kF16)},
          [](double x, double y) { return std::max(x, y); });
  checkOp("Add", {toType(a, DataType::kF64), toType(b, DataType::kF64)},
          [](double x, double y) { return x + y; });
}

TEST(Binary, MaxPropagatesNaN) {
  const Tensor a = test::tensorFrom({3}, {NAN, 1.f, 2.f});
  const Tensor b = test::tensorFrom({3}, {1.f, NAN, 0.f});
  test::OpRun r = runOp("Max", {a, b}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_TRUE(std::isnan(r.outputs[0].data<float>()[0]));
  EXPECT_TRUE(std::isnan(r.outputs[0].data<float>()[1]));
  EXPECT_EQ(r.outputs[0].data<float>()[2], 2.f);
}

// Conv outputs NC4HW4 on the CPU; Add of two such tensors and Mul by a scalar must run on the
// packed buffers (6 channels: padding lanes present) with no conversion around them.
TEST(Binary, KeepsPackedLayoutWithoutConversions) {
  const Tensor x = randomTensor({3, 5, 7, 9}, 41);
  const Tensor w1 = randomTensor({6, 5, 1, 1}, 42), w2 = randomTensor({6, 5, 1, 1}, 43);
  auto runGraph = [&](bool fused, std::map<std::string, Tensor>* outs, PlacementReport* report) {
    GraphBuilder gb;
    const std::string in = gb.input("x", DataType::kF32, {3, 5, 7, 9});
    const std::string c1 = gb.op1("Conv", {in, gb.constant("w1", w1)});
    const std::string c2 = gb.op1("Conv", {in, gb.constant("w2", w2)});
    if (fused) {
      const std::string sum = gb.op1("Add", {c1, c2});
      gb.output(gb.op1("Mul", {sum, gb.constant("k", test::tensorFrom({}, {0.5f}))}));
    } else {
      gb.output(c1);
      gb.output(c2);
    }
    std::shared_ptr<Graph> g;
    ASSERT_TRUE(gb.build(&g).isOk());
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
    const Status st = s->run({{"x", x}}, outs);
    ASSERT_TRUE(st.isOk()) << st.message();
    *report = s->report();
  };
  std::map<std::string, Tensor> fusedOut, convOut;
  PlacementReport fusedReport, convReport;
  runGraph(true, &fusedOut, &fusedReport);
  runGraph(false, &convOut, &convReport);
  ASSERT_EQ(fusedOut.size(), 1u);
  ASSERT_EQ(convOut.size(), 2u);
  const Tensor& c1 = convOut.begin()->second;
  const Tensor& c2 = std::next(convOut.begin())->second;
  Tensor expected = Tensor::hostAllocate(c1.shape(), DataType::kF32);
  for (int64_t i = 0; i < expected.elementCount(); ++i) {
    expected.data<float>()[i] = (c1.data<float>()[i] + c2.data<float>()[i]) * 0.5f;
  }
  expectClose(fusedOut.begin()->second, expected, 1e-5, 1e-6, "packed Add/Mul");
  // x is packed and the one output unpacked: no conversion around Add or Mul.
  EXPECT_EQ(fusedReport.conversions.size(), 2u) << fusedReport.toString();
  EXPECT_EQ(convReport.conversions.size(), 3u) << convReport.toString();
}

// Squeeze-excite: x * scale[N,C,1,1] and x / scale broadcast on the packed buffers (6
// channels: padding lanes hold 0/0 for Div and must not leak), with no conversion inserted.
TEST(Binary, BroadcastsPerChannelOnPackedLayout) {
  const Tensor x = randomTensor({3, 5, 7, 9}, 51);
  const Tensor w = randomTensor({6, 5, 1, 1}, 52);
  GraphBuilder gb;
  const std::string in = gb.input("x", DataType::kF32, {3, 5, 7, 9});
  const std::string c = gb.op1("Conv", {in, gb.constant("w", w)});
  const std::string g = gb.op1("GlobalAveragePool", {c});
  gb.output(c);
  gb.output(g);
  gb.output(gb.op1("Mul", {c, g}));
  gb.output(gb.op1("Div", {c, g}));
  const Tensor bias = randomTensor({1, 6, 1, 1}, 53);
  gb.output(gb.op1("Sub", {g, c}));                          // per-channel input first
  gb.output(gb.op1("Sub", {gb.constant("bias", bias), c}));  // [1, C, 1, 1] against batch 3
  std::shared_ptr<Graph> graph;
  ASSERT_TRUE(gb.build(&graph).isOk());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(graph, SessionOptions{}, &s).isOk());
  std::map<std::string, Tensor> outs;
  const Status st = s->run({{"x", x}}, &outs);
  ASSERT_TRUE(st.isOk()) << st.message();
  const Tensor& conv = outs[c];
  const Tensor& pooled = outs[g];
  expectClose(outs[graph->outputs[2].name], toType(reference({conv, pooled}, std::multiplies<double>()), DataType::kF32),
              1e-5, 1e-6, "packed Mul");
  expectClose(outs[graph->outputs[3].name], toType(reference({conv, pooled}, std::divides<double>()), DataType::kF32),
              1e-4, 1e-5, "packed Div");
  expectClose(outs[graph->outputs[4].name], toType(reference({pooled, conv}, std::minus<double>()), DataType::kF32),
              1e-5, 1e-6, "packed Sub, per-channel first");
  expectClose(outs[graph->outputs[5].name], toType(reference({bias, conv}, std::minus<double>()), DataType::kF32),
              1e-5, 1e-6, "packed Sub, unbatched per-channel constant");
  // x and the constant bias are packed and the six outputs unpacked: none around Mul, Div or Sub.
  EXPECT_EQ(s->report().conversions.size(), 8u) << s->report().toString();
}

TEST(Binary, RejectsShapesThatDoNotBroadcast) {
  test::OpRun r =
      runOp("Add", {randomTensor({3, 4}, 1), randomTensor({5}, 2)}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("does not broadcast"), std::string::npos) << r.status.message();
  r = runOp("Add", {randomTensor({3}, 1), toType(randomTensor({3}, 2), DataType::kF64)}, {}, 1,
            BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
}

}  // namespace
}  // namespace tessera
