// Loads an ONNX model, feeds every input a smooth test pattern, runs it once on the best
// backend present (or the one asked for) and prints what came out.
//
//   run_model MODEL.onnx [--backend auto|cpu|opencl|vulkan] [--threads N]
//             [--shape NAME=1x3x48x192]...
//
// Inputs whose model shape has free dimensions need a --shape.
#include <tessera/OnnxImporter.hpp>
#include <tessera/Tessera.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

int usage(const char* message) {
  std::fprintf(stderr, "run_model: %s\nusage: run_model MODEL.onnx [--backend auto|cpu|opencl|vulkan]"
               " [--threads N] [--shape NAME=1x3x48x192]...\n", message);
  return 2;
}

bool parseShape(const std::string& text, tessera::Shape* out) {
  std::stringstream in(text);
  std::string part;
  out->clear();
  while (std::getline(in, part, 'x')) {
    char* end = nullptr;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v <= 0) return false;
    out->push_back(v);
  }
  return !out->empty();
}

// The session on the first backend that can be created, in order of preference; the CPU is
// the last resort and always there.
tessera::Status createSession(std::shared_ptr<const tessera::Graph> graph, const std::string& backend,
                              int threads, std::unique_ptr<tessera::Session>* session) {
  std::vector<tessera::BackendType> candidates;
  if (backend == "auto") {
    candidates = {tessera::BackendType::kVulkan, tessera::BackendType::kOpenCL,
                  tessera::BackendType::kCPU};
  } else {
    tessera::BackendType t;
    if (!tessera::parseBackendType(backend, &t)) {
      return tessera::Status::invalid("unknown backend '" + backend + "'");
    }
    candidates = {t};
  }
  tessera::Status last;
  for (tessera::BackendType t : candidates) {
    tessera::SessionOptions options;
    options.backends = {t};
    options.threads = threads;
    last = tessera::Session::create(graph, options, session);
    if (last.isOk()) return last;
    std::fprintf(stderr, "run_model: %s unavailable: %s\n", tessera::backendTypeName(t),
                 last.message().c_str());
  }
  return last;
}

// Smooth values in [-1, 1] for float inputs (like a normalised image); zeros otherwise.
tessera::Tensor patternInput(const tessera::Shape& shape, tessera::DataType dtype) {
  tessera::Tensor t = tessera::Tensor::hostAllocate(shape, dtype);
  if (dtype == tessera::DataType::kF32) {
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.elementCount(); ++i) {
      p[i] = static_cast<float>(0.8 * std::sin(0.05 * i) + 0.2 * std::cos(0.011 * i));
    }
  }
  return t;
}

void printOutput(const std::string& name, const tessera::Tensor& t) {
  std::printf("output '%s': %s %s\n", name.c_str(), tessera::dataTypeName(t.dtype()),
              tessera::shapeToString(t.shape()).c_str());
  if (t.dtype() != tessera::DataType::kF32 || t.elementCount() == 0) return;
  const float* p = t.data<float>();
  const int64_t n = t.elementCount();
  std::printf("  first values:");
  for (int64_t i = 0; i < std::min<int64_t>(n, 8); ++i) std::printf(" %.6g", p[i]);
  std::printf("%s\n", n > 8 ? " ..." : "");
  // Over the last axis, e.g. class scores: the best class of the first row.
  const int64_t last = t.rank() > 0 ? t.dim(-1) : 1;
  const int64_t best = std::max_element(p, p + last) - p;
  std::printf("  argmax over the last axis of the first row: %lld (%.6g)\n",
              static_cast<long long>(best), p[best]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("no model given");
  std::string modelPath;
  std::string backend = "auto";
  int threads = 2;
  std::map<std::string, tessera::Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool hasValue = i + 1 < argc;
    if (a == "--backend" && hasValue) {
      backend = argv[++i];
    } else if (a == "--threads" && hasValue) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--shape" && hasValue) {
      const std::string v = argv[++i];
      const size_t eq = v.find('=');
      tessera::Shape s;
      if (eq == std::string::npos || !parseShape(v.substr(eq + 1), &s)) {
        return usage(("--shape expects NAME=1x3x48x192, not '" + v + "'").c_str());
      }
      shapes[v.substr(0, eq)] = s;
    } else if (a.rfind("--", 0) == 0 || !modelPath.empty()) {
      return usage(("unexpected argument '" + a + "'").c_str());
    } else {
      modelPath = a;
    }
  }
  if (modelPath.empty()) return usage("no model given");

  std::shared_ptr<tessera::Graph> graph;
  tessera::Status s = tessera::loadOnnxModel(modelPath, &graph);
  if (!s.isOk()) {
    std::fprintf(stderr, "run_model: %s\n", s.message().c_str());
    return 1;
  }

  std::map<std::string, tessera::Tensor> inputs;
  for (const tessera::ValueInfo& v : graph->inputs) {
    tessera::Shape shape(v.dims.begin(), v.dims.end());
    auto given = shapes.find(v.name);
    if (given != shapes.end()) {
      shape = given->second;
    } else if (!v.hasShape || std::count(shape.begin(), shape.end(), -1) > 0) {
      std::fprintf(stderr, "run_model: input '%s' has free dimensions: give --shape %s=...\n",
                   v.name.c_str(), v.name.c_str());
      return 2;
    }
    inputs[v.name] = patternInput(shape, v.dtype);
    std::printf("input '%s': %s %s\n", v.name.c_str(), tessera::dataTypeName(v.dtype),
                tessera::shapeToString(shape).c_str());
  }

  std::unique_ptr<tessera::Session> session;
  s = createSession(graph, backend, threads, &session);
  std::map<std::string, tessera::Tensor> outputs;
  const auto start = std::chrono::steady_clock::now();
  if (s.isOk()) s = session->run(inputs, &outputs);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!s.isOk()) {
    std::fprintf(stderr, "run_model: %s\n", s.message().c_str());
    return 1;
  }
  for (const tessera::ValueInfo& o : graph->outputs) printOutput(o.name, outputs.at(o.name));
  const tessera::BackendType first = session->backends().front();
  std::printf("ran on %s (%s) in %.3f ms, planning included\n", tessera::backendTypeName(first),
              session->deviceName(first).c_str(), ms);
  return 0;
}
