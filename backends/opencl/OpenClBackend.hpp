// The OpenCL backend: tensors in device memory (NC4HW4 as image2d, or buffers past the image
// limits; every other layout as buffers), DYNAMIC memory reused across ops, host transfers
// with the layout conversion done on the device, one in-order queue, and per-kernel device
// times from event profiling.
#pragma once
#include <CL/cl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/opencl/OpenClRuntime.hpp"
#include "core/src/Nc4StorageChoice.hpp"
#include "tessera/Backend.hpp"
#include "tessera/OpenClKernel.hpp"  // Nc4Geometry

namespace tessera {

// Device storage of one tensor (the Tensor's deviceHandle()).
struct ClStorage {
  cl_mem mem = nullptr;
  bool image = false;                // NC4HW4 as image2d (else a buffer)
  bool half = false;                 // image channel type CL_HALF_FLOAT
  size_t width = 0, height = 0;      // image extents in pixels
  size_t bytes = 0;                  // buffer size
  bool free = false;                 // DYNAMIC storage returned to the pool
};

// A device buffer an execution owns (packed weights, staging).
class ClBuffer {
 public:
  ClBuffer() = default;
  ~ClBuffer() { reset(); }
  ClBuffer(const ClBuffer&) = delete;
  ClBuffer& operator=(const ClBuffer&) = delete;
  void reset() { if (mem_) clReleaseMemObject(mem_); mem_ = nullptr; }
  cl_mem get() const { return mem_; }
  cl_mem* put() { reset(); return &mem_; }
 private:
  cl_mem mem_ = nullptr;
};

class OpenClBackend final : public Backend {
 public:
  OpenClBackend(std::shared_ptr<opencl::Runtime> runtime, cl_command_queue queue,
                const BackendOptions& options, bool profiling);
  ~OpenClBackend() override;

  std::string deviceName() const override;
  // GPU devices count as discrete (OpenCL does not say reliably which are integrated).
  DeviceKind deviceKind() const override { return device().gpu ? DeviceKind::kDiscreteGPU : DeviceKind::kCPU; }
  std::unique_ptr<Execution> onCreate(const Node& node, const Tensors& inputs,
                                      const Tensors& outputs) override;
  Status onAcquireBuffer(Tensor* t, StorageType storage) override;
  Status onReleaseBuffer(Tensor* t, StorageType storage) override;
  bool onShareBuffer(Tensor* t, const Tensor* from) override;
  void onClearBuffers() override;
  Status onCopyBuffer(const Tensor* src, Tensor* dst) override;
  std::unique_ptr<Execution> onCreateCopy(const Tensor* src, Tensor* dst) override;
  void onResizeBegin() override;
  void onExecuteBegin(int segment) override;
  Status onExecuteEnd(int segment) override;
  Status onSegmentEnd(int segment) override;
  size_t plannedPeakBytes() const override;
  uint64_t enqueuedDispatches() const override { return enqueuedDispatches_; }

  opencl::Runtime& runtime() { return *runtime_; }
  const opencl::DeviceInfo& device() const { return runtime_->info(); }
  cl_context context() const { return runtime_->context(); }
  cl_command_queue queue() const { return queue_; }
  static ClStorage* storage(const Tensor* t) { return static_cast<ClStorage*>(t->deviceHandle()); }
  bool owns(const Tensor* t) const { return t && t->backend() == this; }

  // NC4HW4 tensors are stored as rgba16f images (fp16 requested and cl_khr_fp16 present).
  bool halfImages() const { return halfImages_; }
  // NC4HW4 tensors in images or buffers, and why (Nc4StorageChoice.hpp); decided on first
  // use: forced, or the measurement cached for this device, driver and precision, or
  // measured now. Tensors past the image limits are buffers either way.
  const Nc4StorageChoice& nc4Storage();
  std::string nc4StorageDevice() const;  // its cache key: device, driver, precision
  // Why fp16 was not used, when it was requested but is not; empty otherwise.
  const std::string& precisionNote() const { return precisionNote_; }

  // Enqueues a kernel (execute path). Records an event when profiling.
  Status enqueue(cl_kernel kernel, const opencl::WorkSize& work, const std::string& label);
  // A buffer of at least `bytes` (planning time), optionally filled from host memory.
  Status createBuffer(size_t bytes, const void* init, ClBuffer* out, const std::string& what);

  // Profiling: per-kernel device time of the last run, from OpenCL events (ms), in order.
  // Switching it on re-creates the queue with CL_QUEUE_PROFILING_ENABLE (call before
  // planning). TESSERA_OPENCL_PROFILE=1 switches it on from the start.
  Status onSetProfiling(bool on) override;
  // Where the next enqueued kernel's time will sit in deviceProfile(), and the sum of
  // [begin, end) once the run is done: an execution's own device time.
  size_t profileCursor() const { return lastProfile_.size() + events_.size(); }
  double profileSum(size_t begin, size_t end) const;
  bool profiling() const { return profiling_; }
  std::vector<std::pair<std::string, double>> deviceProfile() const { return lastProfile_; }
  // The same for the most recent profiled run of any OpenCL backend in this process (the
  // Session does not hand out its backends; see docs/OPENCL.md).
  static std::vector<std::pair<std::string, double>> lastRunProfile();

 private:
  Status allocate(Tensor* t, bool dynamic, ClStorage** out);
  std::shared_ptr<opencl::Runtime> runtime_;
  cl_command_queue queue_ = nullptr;
  bool halfImages_ = false;
  BackendOptions options_;
  std::unique_ptr<Nc4StorageChoice> nc4Storage_;  // decided on first use
  std::string precisionNote_;
  bool profiling_ = false;
  uint64_t enqueuedDispatches_ = 0;  // every kernel enqueued (Backend::enqueuedDispatches)
  // clFlush after a segment's 1st, 2nd, 4th, 8th and 16th kernel, then every 16th (off with
  // TESSERA_OPENCL_FLUSH=0): a driver may hold enqueued work until a flush or clFinish, which
  // leaves the device idle while the host enqueues the whole segment.
  bool flushEarly_ = true;
  int segmentEnqueues_ = 0;
  std::vector<std::unique_ptr<ClStorage>> pool_;   // every allocation of the current plan
  std::vector<std::pair<std::string, cl_event>> events_;
  std::vector<std::pair<std::string, double>> lastProfile_;
  int lastSegment_ = -1;
};

// The OpenCL backend of an execution.
inline OpenClBackend* openclBackend(const Execution& e) { return static_cast<OpenClBackend*>(e.backend()); }

}  // namespace tessera
