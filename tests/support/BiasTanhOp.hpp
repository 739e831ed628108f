// The custom op the custom-kernel suites register on each backend: <domain>::BiasTanh,
// y = alpha * tanh(x) + B[c] with x [N, C, H, W] and B [C] (an initializer), its CPU
// reference kernel, shape function, one-node graph, and a helper that runs it.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/OpTest.hpp"
#include "tessera/CustomOp.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {

class CpuBiasTanh final : public Execution {
 public:
  CpuBiasTanh(Backend* b, float alpha) : Execution(b), alpha_(alpha) {}
  Status onExecute(const Tensors& in, const Tensors& out) override {
    const Shape& s = in[0]->shape();
    const int64_t hw = s[2] * s[3];
    for (int64_t i = 0; i < in[0]->elementCount(); ++i)
      out[0]->data<float>()[i] = alpha_ * std::tanh(in[0]->data<float>()[i]) + in[1]->data<float>()[(i / hw) % s[1]];
    return Status::ok();
  }

 private:
  float alpha_;
};

inline Status biasTanhShape(ShapeContext& ctx) {
  if (!ctx.input(0) || !ctx.input(1)) return ctx.error("needs X and B");
  ctx.output(0) = Tensor(ctx.input(0)->shape(), ctx.input(0)->dtype());
  return Status::ok();
}

// x -> <domain>::<op>(x, B) -> y, alpha 1.5, B[c] = c/4 - 1/2 an initializer (or a graph
// input when !constantBias).
inline std::shared_ptr<Graph> biasTanhGraph(const std::string& domain, const std::string& op, int64_t channels,
                                            bool constantBias = true) {
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", DataType::kF32, {-1, channels, -1, -1}, true});
  std::vector<float> b(channels);
  for (int64_t c = 0; c < channels; ++c) b[c] = 0.25f * static_cast<float>(c) - 0.5f;
  if (constantBias) g->initializers["B"] = tensorFrom({channels}, b);
  else g->inputs.push_back({"B", DataType::kF32, {channels}, true});
  Node n;
  n.name = "n";
  n.domain = domain;
  n.opType = op;
  n.inputs = {"x", "B"};
  n.outputs = {"y"};
  n.attrs.setFloat("alpha", 1.5f);
  g->nodes.push_back(n);
  g->outputs.push_back({"y", DataType::kF32, {}, false});
  EXPECT_TRUE(g->validate().isOk());
  return g;
}

struct BiasTanhRun {
  Status status;
  Tensor y;
  PlacementReport report;
};

// One run on `backend` with `provider` selected.
inline BiasTanhRun runBiasTanh(std::shared_ptr<Graph> g, BackendType backend, const std::string& provider,
                               const Tensor& x, Precision precision = Precision::kFP32,
                               Nc4Storage storage = Nc4Storage::kAuto) {
  SessionOptions o;
  o.nc4Storage = storage;
  o.backends = {backend};
  o.providers = {provider};
  o.precision = precision;
  std::unique_ptr<Session> s;
  BiasTanhRun r;
  r.status = Session::create(g, o, &s);
  if (!r.status.isOk()) return r;
  std::map<std::string, Tensor> out;
  r.status = s->run({{"x", x}}, &out);
  r.report = s->report();
  if (r.status.isOk()) r.y = out["y"];
  return r;
}

}  // namespace test
}  // namespace tessera
