#include "support/OpTest.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace tessera {
namespace test {

OpRun runOp(const std::string& opType, const std::vector<Tensor>& inputs, const Attributes& attrs,
            int numOutputs, BackendType backend, const std::vector<bool>& constantInputs, int opset,
            Precision precision) {
  OpRun r;
  auto g = std::make_shared<Graph>();
  Node n;
  n.opType = opType;
  n.name = "op";
  n.opset = opset;
  n.attrs = attrs;
  std::map<std::string, Tensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (t.dtype() == DataType::kUnknown) { n.inputs.push_back(""); continue; }
    const std::string name = "in" + std::to_string(i);
    n.inputs.push_back(name);
    Tensor c = t;
    c.setName(name);
    if (i < constantInputs.size() && constantInputs[i]) {
      c.setConstant(true);
      g->initializers[name] = c;
    } else {
      ValueInfo v;
      v.name = name;
      v.dtype = t.dtype();
      v.dims = t.shape();
      v.hasShape = true;
      g->inputs.push_back(v);
      feeds[name] = c;
    }
  }
  for (int i = 0; i < numOutputs; ++i) {
    n.outputs.push_back("out" + std::to_string(i));
    ValueInfo v;
    v.name = n.outputs.back();
    g->outputs.push_back(v);
  }
  g->nodes.push_back(n);
  r.status = g->validate();
  if (!r.status.isOk()) return r;
  SessionOptions o;
  o.backends = {backend};
  o.threads = 2;
  o.precision = precision;
  std::unique_ptr<Session> s;
  r.status = Session::create(g, o, &s);
  if (!r.status.isOk()) return r;
  std::map<std::string, Tensor> outs;
  r.status = s->run(feeds, &outs);
  r.report = s->report();
  if (!r.status.isOk()) return r;
  for (int i = 0; i < numOutputs; ++i) r.outputs.push_back(outs["out" + std::to_string(i)]);
  return r;
}

Tensor randomTensor(const Shape& shape, uint32_t seed, float lo, float hi) {
  Tensor t = Tensor::hostAllocate(shape, DataType::kF32);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.elementCount(); ++i) p[i] = dist(rng);
  return t;
}

Tensor tensorFrom(const Shape& shape, const std::vector<float>& values) {
  Tensor t = Tensor::hostAllocate(shape, DataType::kF32);
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.elementCount()); ++i) t.data<float>()[i] = values[i];
  return t;
}

Tensor tensorFromInts(const Shape& shape, const std::vector<int64_t>& values) {
  Tensor t = Tensor::hostAllocate(shape, DataType::kI64);
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.elementCount()); ++i) t.data<int64_t>()[i] = values[i];
  return t;
}

void expectClose(const Tensor& actual, const Tensor& expected, double rtol, double atol, const std::string& what) {
  ASSERT_EQ(shapeToString(actual.shape()), shapeToString(expected.shape())) << what;
  ASSERT_EQ(dataTypeName(actual.dtype()), std::string(dataTypeName(expected.dtype()))) << what;
  Tensor a = Tensor::hostAllocate(actual.shape(), DataType::kF64);
  Tensor e = Tensor::hostAllocate(expected.shape(), DataType::kF64);
  ASSERT_TRUE(convertDataType(actual, a));
  ASSERT_TRUE(convertDataType(expected, e));
  int reported = 0;
  for (int64_t i = 0; i < a.elementCount(); ++i) {
    const double x = a.data<double>()[i], y = e.data<double>()[i];
    if (std::isnan(x) && std::isnan(y)) continue;
    if (x == y) continue;
    if (!(std::fabs(x - y) <= atol + rtol * std::fabs(y))) {
      ADD_FAILURE() << what << ": element " << i << " is " << x << ", expected " << y;
      if (++reported >= 5) return;
    }
  }
}

std::vector<BackendType> availableBackends() {
  std::vector<BackendType> out;
  for (BackendType t : BackendRegistry::instance().types()) {
    const BackendFactory* f = BackendRegistry::instance().find(t);
    std::unique_ptr<Backend> b;
    if (f->create(BackendOptions{}, &b).isOk()) out.push_back(t);
  }
  return out;
}

}  // namespace test
}  // namespace tessera
