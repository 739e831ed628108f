// The small graph the tracing tests use, its values computed by hand, and a Relu made wrong
// on purpose (by 1e-3, published under the provider "test_perturbed") for the divergence
// tests of each backend:
//   a = x * 2;  b = a - 1;  r = Relu(b);  y = Sigmoid(r);  s = Shape(x) (folded)
#pragma once
#include <cmath>
#include <memory>

#include <gtest/gtest.h>

#include "tessera/Session.hpp"

namespace tessera {
namespace test {

inline const char* perturbedProvider() { return "test_perturbed"; }
constexpr float kPerturbation = 1e-3f;

inline std::shared_ptr<Graph> traceGraph() {
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", DataType::kF32, {-1, -1, -1, -1}, true});
  Tensor two = Tensor::hostAllocate({}, DataType::kF32), one = Tensor::hostAllocate({}, DataType::kF32);
  two.data<float>()[0] = 2.f;
  one.data<float>()[0] = 1.f;
  g->initializers["two"] = two;
  g->initializers["one"] = one;
  auto add = [&](const char* name, const char* op, std::vector<std::string> in, const char* out) {
    Node n;
    n.name = name;
    n.opType = op;
    n.inputs = std::move(in);
    n.outputs = {out};
    g->nodes.push_back(n);
  };
  add("scale", "Mul", {"x", "two"}, "a");
  add("shift", "Sub", {"a", "one"}, "b");
  add("act", "Relu", {"b"}, "r");
  add("squash", "Sigmoid", {"r"}, "y");
  add("dims", "Shape", {"x"}, "s");
  g->outputs.push_back({"y", DataType::kF32, {}, false});
  g->outputs.push_back({"s", DataType::kI64, {}, false});
  EXPECT_TRUE(g->validate().isOk());
  return g;
}

// The value of traced output `name` ("a", "b", "r", "y") at x = v.
inline double traceGraphValue(const std::string& name, double v) {
  const double a = 2 * v, b = a - 1, r = b > 0 ? b : 0;
  if (name == "a") return a;
  if (name == "b") return b;
  if (name == "r") return r;
  return 1 / (1 + std::exp(-r));
}

// Runs the graph traced on `backend` (with `provider`'s kernels first when not empty).
inline Status traceGraphRun(BackendType backend, const Tensor& x, std::vector<TracedOutput>* trace,
                            const std::string& provider = "", PlacementReport* report = nullptr) {
  SessionOptions o;
  o.backends = {backend};
  o.trace = true;
  if (!provider.empty()) o.providers = {provider};
  std::unique_ptr<Session> s;
  TESSERA_RETURN_IF_ERROR(Session::create(traceGraph(), o, &s));
  std::map<std::string, Tensor> out;
  TESSERA_RETURN_IF_ERROR(s->run({{"x", x}}, &out));
  if (report) *report = s->report();
  return s->trace(trace);
}

// The perturbed Relu on `backend` is found: the CPU's trace as reference, the candidate's
// first divergent output is r, and without the perturbation nothing diverges.
inline void expectPerturbedReluFound(BackendType backend, const Tensor& x) {
  std::vector<TracedOutput> ref, got, clean;
  ASSERT_TRUE(traceGraphRun(BackendType::kCPU, x, &ref).isOk());
  ASSERT_TRUE(traceGraphRun(backend, x, &got, perturbedProvider()).isOk());
  ASSERT_TRUE(traceGraphRun(backend, x, &clean).isOk());
  const Divergence d = findDivergence(ref, got, 1e-4, 1e-5);
  ASSERT_GE(d.first, 0) << "the perturbed Relu was not found";
  EXPECT_EQ(got[d.first].output, "r");
  EXPECT_EQ(got[d.first].opType, "Relu");
  EXPECT_EQ(got[d.first].backend, backendTypeName(backend));
  EXPECT_NEAR(d.values[d.first].maxAbsErr, kPerturbation, 1e-4);
  EXPECT_EQ(findDivergence(ref, clean, 1e-4, 1e-5).first, -1) << "unperturbed, yet a divergence";
}

}  // namespace test
}  // namespace tessera
