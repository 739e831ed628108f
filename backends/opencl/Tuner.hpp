// Local work-group sizes tuned per kernel, build options and global size: the first time a
// dispatch is planned, a few candidate sizes are timed on the device and the fastest kept;
// results persist in the cache directory (keyed by the device's identity) so later starts
// skip the timing. TESSERA_OPENCL_TUNE=off leaves the choice to the driver (no timing).
#pragma once
#include <CL/cl.h>

#include <array>
#include <map>
#include <mutex>
#include <string>

#include "tessera/Status.hpp"

namespace tessera {
namespace opencl {

struct DeviceInfo;

struct WorkSize {
  int dims = 1;
  std::array<size_t, 3> global{{1, 1, 1}};
  std::array<size_t, 3> local{{0, 0, 0}};  // 0: let the driver choose
  bool driverChoice() const { return local[0] == 0; }
  size_t items() const { return global[0] * global[1] * global[2]; }
};

class Tuner {
 public:
  Tuner(const DeviceInfo& device);
  // Picks work.local for `kernel` (args already set) given work.global, timing candidates
  // on `queue` when this (key, global size) is new. `key` names the kernel and options.
  Status tune(cl_command_queue queue, cl_kernel kernel, const std::string& key, WorkSize* work);
  bool enabled() const { return enabled_; }
  // The cache file's line for one result: "key|x y z|checksum" (public for tests that
  // forge entries).
  static std::string entryLine(const std::string& key, const std::array<size_t, 3>& local);
  int timedCount() const { return timed_; }

 private:
  static std::string checksum(const std::string& keyAndLocal);
  void load();
  void save(const std::string& line);
  size_t maxGroup_ = 1;
  size_t maxItems_[3] = {1, 1, 1};
  bool enabled_ = true;
  std::string path_;
  std::mutex mutex_;
  std::map<std::string, std::array<size_t, 3>> results_;
  int timed_ = 0;
};

// Global sizes rounded up to multiples of the local size (OpenCL 1.2 requires it); kernels
// check their own bounds.
std::array<size_t, 3> roundedGlobal(const WorkSize& w);

}  // namespace opencl
}  // namespace tessera
