// Programs built at planning time from the embedded kernel sources with build options
// (-DFLOAT=float, per-argument storage, op variants), cached in memory for the process and
// as program binaries on disk, keyed strictly by platform, device, driver version, build
// options and the hash of the source: any mismatch is a miss and a rebuild.
#pragma once
#include <CL/cl.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "backends/opencl/KernelSource.hpp"
#include "tessera/Status.hpp"

namespace tessera {
namespace opencl {

struct DeviceInfo;

struct ProgramCacheStats {
  int builtFromSource = 0;
  int loadedFromDisk = 0;
  int memoryHits = 0;
  int discarded = 0;  // disk entries found corrupt, foreign or rejected by the driver
};

class ProgramCache {
 public:
  ProgramCache(cl_context context, const DeviceInfo& device);
  ~ProgramCache();

  // The built program of an embedded kernel file with these options.
  Status get(const ProgramSource& src, const std::string& options, cl_program* out);
  // A program from any source (custom kernels, tests): `name` names it in errors.
  Status build(const std::string& name, const std::string& source, const std::string& options,
               cl_program* out);
  // A kernel object of `id`'s program (the caller releases it).
  Status kernel(const KernelId& id, const std::string& options, cl_kernel* out);

  ProgramCacheStats stats() const;
  void setDiskCacheEnabled(bool on) { disk_ = on; }

 private:
  Status buildUncached(const std::string& name, const std::string& source, uint64_t sourceHash,
                       const std::string& options, cl_program* out);
  cl_context context_;
  cl_device_id device_;
  std::string identity_;
  std::string dir_;
  bool disk_ = true;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, cl_program> programs_;  // (name+hash, options)
  ProgramCacheStats stats_;
};

}  // namespace opencl
}  // namespace tessera
