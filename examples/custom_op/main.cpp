// An op Tessera does not know, added from outside: com.example::ScaledTanh (ScaledTanh.hpp),
// with a kernel per backend registered at run time. Loads an ONNX model that uses it
// (make_model.py), runs it on every backend this Tessera has and checks each result against
// a plain loop, and every GPU backend's against the CPU's.
//   custom_op MODEL.onnx      (exit 0 when every backend present agrees)
// One line per backend: PASS|FAIL|SKIP <backend>: ...
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "ScaledTanh.hpp"
#include "tessera/OnnxImporter.hpp"

namespace {

using tessera::BackendType;
using tessera::Status;

// The kernels this example has, one per backend.
struct KernelPart {
  BackendType backend;
  Status (*registerKernel)();
};
const KernelPart kKernels[] = {
    {BackendType::kCPU, example::registerScaledTanhCpu},
    {BackendType::kOpenCL, example::registerScaledTanhOpenCl},
    {BackendType::kVulkan, example::registerScaledTanhVulkan},
};

struct Result {
  Status status;
  tessera::Tensor y;
  std::string scaledTanhOn;  // the backend that ran ScaledTanh
  std::string placement;     // " ScaledTanh@opencl Relu@opencl"
};

Result runOn(BackendType backend, std::shared_ptr<tessera::Graph> graph, const tessera::Tensor& x) {
  Result r;
  tessera::SessionOptions options;
  options.backends = {backend};
  std::unique_ptr<tessera::Session> session;
  r.status = tessera::Session::create(graph, options, &session);
  if (!r.status.isOk()) return r;
  std::map<std::string, tessera::Tensor> out;
  r.status = session->run({{"x", x}}, &out);
  if (!r.status.isOk()) return r;
  r.y = out["y"];
  for (const auto& n : session->report().nodes) {
    r.placement += " " + n.opType + "@" + tessera::backendTypeName(n.backend);
    if (n.opType == "ScaledTanh") r.scaledTanhOn = tessera::backendTypeName(n.backend);
  }
  return r;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", v);
  return text;
}

double maxDifference(const tessera::Tensor& a, const tessera::Tensor& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.elementCount(); ++i)
    worst = std::max(worst, static_cast<double>(std::fabs(a.data<float>()[i] - b.data<float>()[i])));
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: custom_op MODEL.onnx\n");
    return 2;
  }
  Status st = example::registerScaledTanhOp();
  std::set<BackendType> withKernel;
  for (const KernelPart& part : kKernels) {
    if (!st.isOk()) break;
    Status k = part.registerKernel();
    if (k.isOk()) withKernel.insert(part.backend);
    else if (k.code() != tessera::StatusCode::kUnavailable) st = k;  // unavailable: backend not built
  }
  std::shared_ptr<tessera::Graph> graph;
  if (st.isOk()) st = tessera::loadOnnxModel(argv[1], &graph);
  if (!st.isOk()) {
    std::fprintf(stderr, "custom_op: %s\n", st.message().c_str());
    return 1;
  }

  // x and the expected y = Relu(1.5 * tanh(0.75 * x) + B[c]), B from the model.
  tessera::Tensor x = tessera::Tensor::hostAllocate({2, 3, 5, 7}, tessera::DataType::kF32);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  for (int64_t i = 0; i < x.elementCount(); ++i) x.data<float>()[i] = dist(rng);
  const float* bias = graph->initializers.at("B").data<float>();
  tessera::Tensor expected = tessera::Tensor::hostAllocate(x.shape(), x.dtype());
  const int64_t channels = x.dim(1), plane = x.dim(2) * x.dim(3);
  for (int64_t i = 0; i < x.elementCount(); ++i)
    expected.data<float>()[i] =
        std::max(0.f, 1.5f * std::tanh(0.75f * x.data<float>()[i]) + bias[(i / plane) % channels]);

  const auto built = tessera::BackendRegistry::instance().types();
  Result cpu;
  int failures = 0;
  for (BackendType backend : {BackendType::kCPU, BackendType::kOpenCL, BackendType::kVulkan}) {
    const char* name = tessera::backendTypeName(backend);
    if (std::find(built.begin(), built.end(), backend) == built.end()) {
      std::printf("SKIP %s: not built into this Tessera\n", name);
      continue;
    }
    Result r = runOn(backend, graph, x);
    if (!r.status.isOk()) {
      // A backend that cannot start (no driver, no device) is skipped, saying why; any other
      // error is a failure.
      const bool unavailable = r.status.code() == tessera::StatusCode::kUnavailable;
      std::printf("%s %s: %s\n", unavailable ? "SKIP" : "FAIL", name, r.status.message().c_str());
      failures += unavailable ? 0 : 1;
      continue;
    }
    const double error = maxDifference(r.y, expected);
    std::string note = "max error " + number(error);
    bool ok = error <= 1e-5;
    if (backend == BackendType::kCPU) {
      cpu = r;
    } else if (cpu.status.isOk() && cpu.y.data()) {
      const double diff = maxDifference(r.y, cpu.y);
      note += ", max difference from cpu " + number(diff);
      ok = ok && diff <= 1e-5;
    }
    if (!withKernel.count(backend)) {
      note += "; no ScaledTanh kernel for " + std::string(name) + " in this example: it ran on " + r.scaledTanhOn;
    } else if (r.scaledTanhOn != name) {
      note += "; ScaledTanh fell back to " + r.scaledTanhOn;
      ok = false;
    }
    failures += ok ? 0 : 1;
    std::printf("%s %s: %s;%s\n", ok ? "PASS" : "FAIL", name, note.c_str(), r.placement.c_str());
  }
  return failures == 0 ? 0 : 1;
}
