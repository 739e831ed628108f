// The OpenCL runtime shared by every OpenCL backend instance of a process: the chosen
// platform/device, one context, the program cache (in memory and on disk) and the
// work-group tuner. Each backend (one per Session) has its own in-order queue on it.
#pragma once
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/opencl/ProgramCache.hpp"
#include "backends/opencl/Tuner.hpp"
#include "tessera/Status.hpp"

namespace tessera {
namespace opencl {

struct DeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  int index = 0;  // position in the process-wide list (platforms in order, then devices)
  std::string platformName, deviceName, vendor, driverVersion, deviceVersion, extensions;
  bool gpu = false;
  bool images = false;
  bool fp16 = false;  // cl_khr_fp16
  size_t image2dMaxWidth = 0, image2dMaxHeight = 0;
  size_t maxWorkGroupSize = 1;
  size_t maxWorkItemSizes[3] = {1, 1, 1};
  cl_ulong globalMemBytes = 0, maxAllocBytes = 0;
  cl_uint computeUnits = 1;

  // Strict identity of the device and its driver: part of every cache key.
  std::string cacheIdentity() const;
  // Whether the device lists this extension ("cl_khr_fp64"...).
  bool hasExtension(const std::string& name) const;
  // "fp64, subgroups (int64 arithmetic: always, OpenCL C)" for `tessera devices`.
  std::string capabilities() const;
};

// Every device of every platform; an error saying why when there is none.
Status enumerateDevices(std::vector<DeviceInfo>* out);
// The device for `selector` (an index into the list, or a case-insensitive substring of the
// device or platform name; empty: the first GPU, else the first device).
Status chooseDevice(const std::vector<DeviceInfo>& devices, const std::string& selector,
                    DeviceInfo* out);
// Text for `tessera devices`.
std::string describeDevices();
// "CL_INVALID_VALUE (-30)".
std::string errorName(cl_int err);

class Runtime {
 public:
  // The process-wide runtime for this device selector (created on first use).
  static Status get(const std::string& selector, std::shared_ptr<Runtime>* out);
  ~Runtime();

  const DeviceInfo& info() const { return info_; }
  cl_context context() const { return context_; }
  ProgramCache& programs() { return *programs_; }
  Tuner& tuner() { return *tuner_; }
  // A new in-order queue (profiling on request).
  Status createQueue(bool profiling, cl_command_queue* out);

 private:
  Runtime() = default;
  DeviceInfo info_;
  cl_context context_ = nullptr;
  std::unique_ptr<ProgramCache> programs_;
  std::unique_ptr<Tuner> tuner_;
};

// The cache directory: $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else
// ~/.cache/tessera; empty when none can be determined (caching then stays in memory).
std::string cacheDirectory();
// cachefile::fnv1a64 / hex64 for strings (the OpenCL caches' keys).
uint64_t fnv1a64(const std::string& s, uint64_t h = 0xcbf29ce484222325ULL);
std::string hex64(uint64_t v);

}  // namespace opencl
}  // namespace tessera
