#include "core/src/ConvNetTiming.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <vector>

#include "tessera/Session.hpp"

namespace tessera {

namespace {

Tensor filled(const Shape& shape, float scale) {
  Tensor t = Tensor::hostAllocate(shape, DataType::kF32);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.elementCount(); ++i) p[i] = scale * static_cast<float>((i * 7919) % 17 - 8) / 8.f;
  return t;
}

// About 0.5 GFLOP, enough for a GPU's dispatch costs not to decide alone.
std::shared_ptr<Graph> convNet() {
  GraphBuilder g;
  const std::string x = g.input("x", DataType::kF32, {1, 32, 96, 96});
  Attributes same;
  same.setInts("pads", {1, 1, 1, 1});
  Attributes dw = same;
  dw.setInt("group", 32);
  std::string y = g.op1("Relu", {g.op1("Conv", {x, g.constant("w0", filled({32, 32, 3, 3}, 0.05f)),
                                               g.constant("b0", filled({32}, 0.1f))}, same)});
  y = g.op1("Relu", {g.op1("Conv", {y, g.constant("w1", filled({32, 1, 3, 3}, 0.2f))}, dw)});
  y = g.op1("Add", {g.op1("Conv", {y, g.constant("w2", filled({32, 32, 1, 1}, 0.1f))}), x});
  y = g.op1("Conv", {y, g.constant("w3", filled({64, 32, 1, 1}, 0.1f))});
  g.output(g.op1("GlobalAveragePool", {y}));
  std::shared_ptr<Graph> graph;
  return g.build(&graph).isOk() ? graph : nullptr;
}

}  // namespace

double timeConvNet(BackendType t, const BackendOptions& options, int warmups, int runs) {
  std::shared_ptr<Graph> g = convNet();
  if (!g || runs < 1) return -1;
  SessionOptions so;
  so.backends = {t};
  so.precision = options.precision;
  so.threads = options.threads;
  so.device = options.device;
  so.nc4Storage = options.nc4Storage;
  std::unique_ptr<Session> s;
  if (!Session::create(g, so, &s).isOk()) return -1;
  const std::map<std::string, Tensor> in{{"x", filled({1, 32, 96, 96}, 1.f)}};
  std::map<std::string, Tensor> out;
  std::vector<double> ms;
  for (int i = 0; i < warmups + runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (!s->run(in, &out).isOk()) return -1;
    if (i >= warmups) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace tessera
