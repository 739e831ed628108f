// "auto" (tessera/AutoBackend.hpp): which backends, in which order. The GPU comparison times
// a small conv net, the shape of the work the PaddleOCR-style models do, on each GPU backend
// in its own Session, and keeps the medians in one cache entry per (devices, precision).
#include "tessera/AutoBackend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <sstream>

#include "core/src/CacheFile.hpp"
#include "tessera/Log.hpp"
#include "tessera/Registry.hpp"
#include "tessera/Session.hpp"

namespace tessera {

namespace {

bool isGpu(DeviceKind k) { return k == DeviceKind::kDiscreteGPU || k == DeviceKind::kIntegratedGPU; }

Tensor filled(const Shape& shape, float scale) {
  Tensor t = Tensor::hostAllocate(shape, DataType::kF32);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.elementCount(); ++i) p[i] = scale * static_cast<float>((i * 7919) % 17 - 8) / 8.f;
  return t;
}

// 3x3 conv, depthwise 3x3, pointwise expand, a residual add and a global pool at 96x96:
// about 0.5 GFLOP, enough for a GPU's dispatch costs not to decide alone.
std::shared_ptr<Graph> calibrationNet() {
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

// The median of 7 runs after 2 warm-up runs, in ms; negative when the backend cannot run it.
double timeOn(BackendType t, const BackendOptions& options) {
  std::shared_ptr<Graph> g = calibrationNet();
  if (!g) return -1;
  SessionOptions so;
  so.backends = {t};
  so.precision = options.precision;
  so.threads = options.threads;
  so.device = options.device;
  std::unique_ptr<Session> s;
  if (!Session::create(g, so, &s).isOk()) return -1;
  const std::map<std::string, Tensor> in{{"x", filled({1, 32, 96, 96}, 1.f)}};
  std::map<std::string, Tensor> out;
  std::vector<double> ms;
  for (int i = 0; i < 9; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (!s->run(in, &out).isOk()) return -1;
    if (i >= 2) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

AutoBackendChoice chooseAutoBackends(const BackendOptions& options) {
  AutoBackendChoice c;
  const char* any = std::getenv("TESSERA_AUTO_ANY_DEVICE");
  const bool anyDevice = any && std::string(any) == "1";
  std::vector<std::pair<BackendType, std::string>> gpus;  // with the device's name
  for (BackendType t : {BackendType::kVulkan, BackendType::kOpenCL}) {
    const BackendFactory* f = BackendRegistry::instance().find(t);
    if (!f) continue;
    std::unique_ptr<Backend> b;
    const Status st = f->create(options, &b);
    if (!st.isOk()) {
      c.notes.push_back(std::string(backendTypeName(t)) + " backend not used: " + st.message());
    } else if (!isGpu(b->deviceKind()) && !anyDevice) {
      c.notes.push_back(std::string(backendTypeName(t)) + " backend not used: its device (" + b->deviceName() +
                        ") is not a GPU; auto uses the CPU backend instead (ask for it by name to use it)");
    } else {
      gpus.emplace_back(t, b->deviceName());
    }
  }
  if (gpus.size() == 2) {
    // One cache entry per pair of devices and precision: the timings, "vulkan MS\nopencl MS\n".
    const std::string key = std::string("auto backend v1|") + gpus[0].second + "|" + gpus[1].second + "|" +
                            (options.precision == Precision::kFP16 ? "fp16" : "fp32");
    const std::string dir = cachefile::directory();
    const std::string path =
        dir.empty() ? "" : dir + "/auto_backend_" + cachefile::hex64(cachefile::fnv1a64(key.data(), key.size())) + ".txt";
    std::string data;
    std::map<std::string, double> cached;
    if (!path.empty() && cachefile::read(path, key, &data) == cachefile::ReadResult::kHit) {
      std::istringstream in(data);
      std::string name;
      double ms = 0;
      while (in >> name >> ms) cached[name] = ms;
    }
    for (const auto& g : gpus) {
      const auto it = cached.find(backendTypeName(g.first));
      c.ms.emplace_back(g.first, it != cached.end() && cached.size() == 2 ? it->second : -1);
    }
    if (cached.size() != 2) {
      c.measured = true;
      std::ostringstream out;
      out.precision(17);  // read back exactly
      for (auto& m : c.ms) {
        m.second = timeOn(m.first, options);
        out << backendTypeName(m.first) << " " << m.second << "\n";
      }
      if (!path.empty()) {
        cachefile::makeDirs(dir);
        cachefile::write(path, key, out.str());
      }
    }
    // Vulkan first unless OpenCL was faster; a backend that could not run the net goes last.
    const double vk = c.ms[0].second, cl = c.ms[1].second;
    const bool openclFirst = cl >= 0 && (vk < 0 || cl < vk);
    c.backends = openclFirst ? std::vector<BackendType>{BackendType::kOpenCL, BackendType::kVulkan}
                             : std::vector<BackendType>{BackendType::kVulkan, BackendType::kOpenCL};
    std::ostringstream why;
    why.precision(3);
    why << backendTypeName(c.backends[0]) << " first: a small conv net took " << vk << " ms on vulkan and " << cl
        << " ms on opencl (" << (c.measured ? "measured now" : "measured before, cached") << ")";
    c.notes.push_back(why.str());
  } else {
    for (const auto& g : gpus) c.backends.push_back(g.first);
  }
  c.backends.push_back(BackendType::kCPU);
  return c;
}

}  // namespace tessera
