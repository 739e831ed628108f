// "auto" (tessera/AutoBackend.hpp): which backends, in which order. The GPU comparison times
// a small conv net (ConvNetTiming.hpp) on each GPU backend in its own
// Session, and keeps the medians in one cache entry per (devices, precision).
#include "tessera/AutoBackend.hpp"

#include <cstdlib>
#include <map>
#include <sstream>

#include "core/src/CacheFile.hpp"
#include "core/src/ConvNetTiming.hpp"
#include "tessera/Log.hpp"
#include "tessera/Registry.hpp"

namespace tessera {

namespace {

bool isGpu(DeviceKind k) { return k == DeviceKind::kDiscreteGPU || k == DeviceKind::kIntegratedGPU; }

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
        m.second = timeConvNet(m.first, options, 2, 7);
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
