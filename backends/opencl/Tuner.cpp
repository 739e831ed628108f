#include "backends/opencl/Tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "backends/opencl/OpenClRuntime.hpp"
#include "core/src/CacheFile.hpp"
#include "tessera/Log.hpp"

namespace tessera {
namespace opencl {

namespace {
// Dispatches smaller than this are not worth timing: the driver's choice is kept.
constexpr size_t kMinItemsToTune = 8192;
}

std::array<size_t, 3> roundedGlobal(const WorkSize& w) {
  std::array<size_t, 3> g = w.global;
  if (!w.driverChoice())
    for (int i = 0; i < w.dims; ++i) g[i] = (g[i] + w.local[i] - 1) / w.local[i] * w.local[i];
  return g;
}

Tuner::Tuner(const DeviceInfo& device) : maxGroup_(device.maxWorkGroupSize) {
  for (int i = 0; i < 3; ++i) maxItems_[i] = device.maxWorkItemSizes[i];
  if (const char* e = std::getenv("TESSERA_OPENCL_TUNE"); e && std::string(e) == "off") enabled_ = false;
  const std::string dir = cacheDirectory();
  if (!dir.empty()) path_ = dir + "/opencl/tuning-" + hex64(fnv1a64(device.cacheIdentity())) + ".txt";
  load();
}

// One result a line: "key|x y z|checksum". A line whose checksum does not match (a bit
// flip, a torn write, an older format) is ignored and that kernel tuned again.
std::string Tuner::checksum(const std::string& keyAndLocal) {
  return hex64(fnv1a64(keyAndLocal, fnv1a64("tessera-tuning-2")));
}

void Tuner::load() {
  if (path_.empty()) return;
  std::ifstream f(path_);
  std::string line;
  int rejected = 0;
  while (std::getline(f, line)) {
    const size_t sum = line.rfind('|');
    const size_t bar = sum == std::string::npos || sum == 0 ? std::string::npos : line.rfind('|', sum - 1);
    if (bar == std::string::npos || checksum(line.substr(0, sum)) != line.substr(sum + 1)) {
      ++rejected;
      continue;
    }
    std::istringstream v(line.substr(bar + 1, sum - bar - 1));
    std::array<size_t, 3> l{{0, 0, 0}};
    if (v >> l[0] >> l[1] >> l[2]) results_[line.substr(0, bar)] = l;
    else ++rejected;
  }
  if (rejected)
    logMessage(LogLevel::kNote, "OpenCL tuning cache '" + path_ + "': " + std::to_string(rejected) +
                                    " corrupt or outdated entries ignored; those kernels are tuned again");
}

std::string Tuner::entryLine(const std::string& key, const std::array<size_t, 3>& local) {
  std::ostringstream line;
  line << key << "|" << local[0] << " " << local[1] << " " << local[2];
  return line.str() + "|" + checksum(line.str());
}

void Tuner::save(const std::string& line) {
  if (path_.empty()) return;
  cachefile::makeDirs(path_.substr(0, path_.rfind('/')));
  std::ofstream f(path_, std::ios::app);  // one short line per result: appends do not interleave
  f << line << "\n";
}

Status Tuner::tune(cl_command_queue queue, cl_kernel kernel, const std::string& key, WorkSize* work) {
  work->local = {0, 0, 0};
  if (!enabled_ || work->items() < kMinItemsToTune) return Status::ok();
  std::ostringstream k;
  k << key << "@" << work->global[0] << "x" << work->global[1] << "x" << work->global[2];
  const std::string fullKey = k.str();
  cl_device_id device = nullptr;
  clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof(device), &device, nullptr);
  size_t kernelMax = maxGroup_;
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kernelMax), &kernelMax, nullptr);

  // Candidates: the driver's choice and a few shapes of 1..256 items.
  std::vector<std::array<size_t, 3>> candidates = {{{0, 0, 0}}};
  const size_t shapes2d[][2] = {{8, 8}, {16, 4}, {4, 16}, {32, 1}, {16, 16}, {64, 1}, {1, 64}};
  const size_t shapes1d[] = {16, 32, 64, 128, 256};
  auto fits = [&](size_t x, size_t y) {
    return x * y <= kernelMax && x <= maxItems_[0] && y <= maxItems_[1] && x <= work->global[0] * 2 &&
           (work->dims < 2 || y <= work->global[1] * 2);
  };
  if (work->dims >= 2) {
    for (const auto& s : shapes2d)
      if (fits(s[0], s[1])) candidates.push_back({{s[0], s[1], 1}});
  } else {
    for (size_t x : shapes1d)
      if (fits(x, 1)) candidates.push_back({{x, 1, 1}});
  }
  {
    // A stored result is used only if it is one of this kernel's candidates on this device:
    // a cache edited by hand or by accident cannot pass a size the kernel cannot take.
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = results_.find(fullKey);
    if (it != results_.end()) {
      if (std::find(candidates.begin(), candidates.end(), it->second) != candidates.end()) {
        work->local = it->second;
        return Status::ok();
      }
      logMessage(LogLevel::kNote, "OpenCL tuning cache: the stored work-group size of " + fullKey +
                                      " does not fit the kernel; it is tuned again");
      results_.erase(it);
    }
  }

  using Clock = std::chrono::steady_clock;
  auto timeOnce = [&](const std::array<size_t, 3>& local, double* seconds) {
    WorkSize w = *work;
    w.local = local;
    const std::array<size_t, 3> g = roundedGlobal(w);
    const auto t0 = Clock::now();
    if (clEnqueueNDRangeKernel(queue, kernel, w.dims, nullptr, g.data(), w.driverChoice() ? nullptr : w.local.data(),
                               0, nullptr, nullptr) != CL_SUCCESS)
      return false;  // not a valid size for this kernel: skipped
    if (clFinish(queue) != CL_SUCCESS) return false;
    *seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return true;
  };
  // The driver's choice first (after a warm-up run); dispatches that take well under a
  // millisecond are not worth the candidates' time.
  double best = 1e30;
  std::array<size_t, 3> bestLocal{{0, 0, 0}};
  double t = 0;
  if (!timeOnce(bestLocal, &t) || !timeOnce(bestLocal, &best))
    return Status::internal("OpenCL: device failed while timing " + key);
  if (best > 2e-4) {
    for (size_t i = 1; i < candidates.size(); ++i) {
      if (!timeOnce(candidates[i], &t)) continue;
      if (t < best * 0.95) {  // keep the earlier choice unless clearly faster
        best = t;
        bestLocal = candidates[i];
      }
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++timed_;
  results_[fullKey] = bestLocal;
  save(entryLine(fullKey, bestLocal));
  work->local = bestLocal;
  return Status::ok();
}

}  // namespace opencl
}  // namespace tessera
