#include "backends/opencl/OpenClBackend.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "tessera/Registry.hpp"

namespace tessera {

OpenClBackend::OpenClBackend(std::shared_ptr<opencl::Runtime> runtime, cl_command_queue queue,
                             const BackendOptions& options, bool profiling)
    : Backend(BackendType::kOpenCL), runtime_(std::move(runtime)), queue_(queue), options_(options), profiling_(profiling) {
  if (const char* f = std::getenv("TESSERA_OPENCL_FLUSH"); f && (std::string(f) == "0" || std::string(f) == "off"))
    flushEarly_ = false;
  // Testing aid: fp16 image storage (read_imagef/write_imagef convert; no cl_khr_fp16 needed)
  // even where the device lacks cl_khr_fp16, to exercise the fp16 path on any device.
  const char* force = std::getenv("TESSERA_OPENCL_FP16_STORAGE");
  const bool forceHalf = force && std::string(force) == "force" && device().images;
  if (options.precision == Precision::kFP16) {
    if (forceHalf)
      halfImages_ = true;
    else if (!device().fp16)
      precisionNote_ = "OpenCL device '" + device().deviceName +
                       "' has no cl_khr_fp16: fp16 was requested, running in fp32";
    else if (!device().images)
      precisionNote_ = "OpenCL device '" + device().deviceName + "' has no images: running in fp32";
    else
      halfImages_ = true;  // NC4HW4 images in rgba16f; arithmetic stays fp32
  }
}

OpenClBackend::~OpenClBackend() {
  if (queue_) clFinish(queue_);
  for (auto& e : events_) clReleaseEvent(e.second);
  onClearBuffers();
  if (queue_) clReleaseCommandQueue(queue_);
}

std::string OpenClBackend::nc4StorageDevice() const {
  return "opencl|" + device().cacheIdentity() + (halfImages_ ? "|fp16" : "|fp32");
}

const Nc4StorageChoice& OpenClBackend::nc4Storage() {
  if (nc4Storage_) return *nc4Storage_;
  if (!device().images) {
    nc4Storage_ = std::make_unique<Nc4StorageChoice>();
    nc4Storage_->images = false;
    nc4Storage_->why = "the device has no images";
  } else {  // the kernels are built for images or buffers (-DX_STORAGE) by each tensor's storage
    nc4Storage_ = std::make_unique<Nc4StorageChoice>(
        chooseNc4Storage(BackendType::kOpenCL, options_, nc4StorageDevice(), "TESSERA_OPENCL_NC4_STORAGE"));
  }
  return *nc4Storage_;
}

std::string OpenClBackend::deviceName() const {
  // As Vulkan's, the name says which precision runs when fp16 was asked for.
  // Buffers are fp32 always: where they were measured faster than fp16 images, fp16 runs fp32.
  const bool halfUsed = halfImages_ && !(nc4Storage_ && !nc4Storage_->images);
  const std::string mode = halfUsed ? " (fp16 image storage, fp32 arithmetic)"
                           : halfImages_ ? " (fp16 requested, running fp32: NC4HW4 tensors in buffers, " +
                                               nc4Storage_->why + ")"
                           : precisionNote_.empty() ? "" : " (fp16 requested, running fp32)";
  return device().deviceName + " (" + device().platformName + ")" + mode;
}

std::unique_ptr<Execution> OpenClBackend::onCreate(const Node& node, const Tensors& inputs,
                                                   const Tensors& outputs) {
  if (!node.domain.empty()) return nullptr;
  const ExecutionCreator* c = ExecutionRegistry::instance().find(BackendType::kOpenCL, node.opType);
  if (!c) return nullptr;
  return (*c)(this, node, inputs, outputs);
}

Status OpenClBackend::allocate(Tensor* t, bool dynamic, ClStorage** out) {
  const bool nc4 = t->layout() == Layout::kNC4HW4;
  const Nc4Geometry g = nc4Geometry(t->shape());
  const size_t width = static_cast<size_t>(g.width()), height = static_cast<size_t>(g.height());
  const bool image = nc4 && t->dtype() == DataType::kF32 && nc4Storage().images && width > 0 && height > 0 &&
                     width <= device().image2dMaxWidth && height <= device().image2dMaxHeight;
  const size_t bytes = std::max<size_t>(16, t->byteSize());
  if (dynamic) {  // best fit among the storage released earlier in this plan
    ClStorage* best = nullptr;
    size_t bestExcess = SIZE_MAX;
    for (auto& s : pool_) {
      if (!s->free || s->image != image) continue;
      size_t excess;
      if (image) {
        if (s->half != halfImages_ || s->width < width || s->height < height) continue;
        excess = s->width * s->height - width * height;
      } else {
        if (s->bytes < bytes) continue;
        excess = s->bytes - bytes;
      }
      if (excess < bestExcess) { best = s.get(); bestExcess = excess; }
    }
    if (best) {
      best->free = false;
      *out = best;
      return Status::ok();
    }
  }
  auto s = std::make_unique<ClStorage>();
  cl_int err = CL_SUCCESS;
  if (image) {
    cl_image_format format{CL_RGBA, static_cast<cl_channel_type>(halfImages_ ? CL_HALF_FLOAT : CL_FLOAT)};
    cl_image_desc desc{};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = width;
    desc.image_height = height;
    s->mem = clCreateImage(context(), CL_MEM_READ_WRITE, &format, &desc, nullptr, &err);
    s->image = true;
    s->half = halfImages_;
    s->width = width;
    s->height = height;
    s->bytes = width * height * (halfImages_ ? 8 : 16);
  } else {
    s->mem = clCreateBuffer(context(), CL_MEM_READ_WRITE, bytes, nullptr, &err);
    s->bytes = bytes;
  }
  if (err != CL_SUCCESS || !s->mem)
    return Status::outOfMemory("OpenCL: cannot allocate " + std::string(image ? "an image" : "a buffer") +
                               " for tensor " + t->describe() + ": " + opencl::errorName(err));
  pool_.push_back(std::move(s));
  *out = pool_.back().get();
  return Status::ok();
}

Status OpenClBackend::onAcquireBuffer(Tensor* t, StorageType storage) {
  ClStorage* s = nullptr;
  TESSERA_RETURN_IF_ERROR(allocate(t, storage == StorageType::kDynamic, &s));
  t->setHostData(nullptr);
  t->setDevice(this, s);
  return Status::ok();
}

Status OpenClBackend::onReleaseBuffer(Tensor* t, StorageType storage) {
  ClStorage* s = OpenClBackend::storage(t);
  if (!s) return Status::internal("OpenCL: releasing tensor " + t->describe() + " that has no storage");
  if (storage == StorageType::kDynamic) s->free = true;  // the in-order queue makes reuse safe
  return Status::ok();
}

bool OpenClBackend::onShareBuffer(Tensor* t, const Tensor* from) {
  // Buffers only: an NC4HW4 image's texels are not the tensor's row-major bytes. (Layout,
  // dtype, size and that `from` is live DYNAMIC storage the Session has checked.)
  ClStorage* s = OpenClBackend::storage(from);
  if (!s || s->image) return false;
  t->setHostData(nullptr);
  t->setDevice(this, s);
  return true;
}

void OpenClBackend::onClearBuffers() {
  for (auto& s : pool_)
    if (s->mem) clReleaseMemObject(s->mem);
  pool_.clear();
}

void OpenClBackend::onResizeBegin() {
  if (queue_) clFinish(queue_);
  lastSegment_ = -1;
  onClearBuffers();
}

size_t OpenClBackend::plannedPeakBytes() const {
  size_t total = 0;
  for (auto& s : pool_) total += s->bytes;
  return total;
}

Status OpenClBackend::createBuffer(size_t bytes, const void* init, ClBuffer* out, const std::string& what) {
  // At least 16 bytes (zero-sized buffers are invalid). CL_MEM_COPY_HOST_PTR reads the
  // whole buffer from `init`, so a buffer rounded up past `bytes` copies from a zero-padded
  // copy, never past the caller's array.
  unsigned char padded[16] = {};
  const void* src = init;
  if (init && bytes < sizeof padded) {
    if (bytes) std::memcpy(padded, init, bytes);
    src = padded;
  }
  cl_int err = CL_SUCCESS;
  *out->put() = clCreateBuffer(context(), CL_MEM_READ_WRITE | (src ? CL_MEM_COPY_HOST_PTR : 0),
                               std::max<size_t>(bytes, sizeof padded), const_cast<void*>(src), &err);
  if (err != CL_SUCCESS) return Status::outOfMemory("OpenCL: cannot allocate " + std::to_string(bytes) +
                                                    " bytes for " + what + ": " + opencl::errorName(err));
  return Status::ok();
}

Status OpenClBackend::enqueue(cl_kernel kernel, const opencl::WorkSize& work, const std::string& label) {
  const std::array<size_t, 3> g = opencl::roundedGlobal(work);
  cl_event ev = nullptr;
  const cl_int err = clEnqueueNDRangeKernel(queue_, kernel, work.dims, nullptr, g.data(),
                                            work.driverChoice() ? nullptr : work.local.data(), 0,
                                            nullptr, profiling_ ? &ev : nullptr);
  if (err != CL_SUCCESS) return Status::internal("OpenCL: enqueueing kernel '" + label + "' failed: " + opencl::errorName(err));
  ++enqueuedDispatches_;
  if (ev) events_.push_back({label, ev});
  const int n = ++segmentEnqueues_;
  if (flushEarly_ && (n <= 16 ? (n & (n - 1)) == 0 : n % 16 == 0)) {
    const cl_int flushed = clFlush(queue_);
    if (flushed != CL_SUCCESS) return Status::internal("OpenCL: flushing after kernel '" + label + "' failed: " + opencl::errorName(flushed));
  }
  return Status::ok();
}

void OpenClBackend::onExecuteBegin(int segment) {
  // Segment indices increase within a run: one not above the last starts a new run.
  if (segment <= lastSegment_) lastProfile_.clear();
  lastSegment_ = segment;
  segmentEnqueues_ = 0;
}

Status OpenClBackend::onSegmentEnd(int) {
  // Planning may have enqueued work (weight packing, tuning): it is done before running.
  const cl_int err = clFinish(queue_);
  if (err != CL_SUCCESS) return Status::internal("OpenCL: device failed while planning: " + opencl::errorName(err));
  return Status::ok();
}

namespace {
std::mutex gProfileMutex;
std::vector<std::pair<std::string, double>> gLastRunProfile;
}  // namespace

std::vector<std::pair<std::string, double>> OpenClBackend::lastRunProfile() {
  std::lock_guard<std::mutex> lock(gProfileMutex);
  return gLastRunProfile;
}

Status OpenClBackend::onExecuteEnd(int) {
  const cl_int err = clFinish(queue_);
  if (err != CL_SUCCESS) return Status::internal("OpenCL: device failed: " + opencl::errorName(err));
  if (profiling_) {
    for (auto& e : events_) {
      cl_ulong start = 0, end = 0;
      clGetEventProfilingInfo(e.second, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr);
      clGetEventProfilingInfo(e.second, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
      lastProfile_.push_back({e.first, static_cast<double>(end - start) * 1e-6});
      clReleaseEvent(e.second);
    }
    events_.clear();
    std::lock_guard<std::mutex> lock(gProfileMutex);
    gLastRunProfile = lastProfile_;
  }
  return Status::ok();
}

double OpenClBackend::profileSum(size_t begin, size_t end) const {
  double ms = 0;
  for (size_t i = begin; i < end && i < lastProfile_.size(); ++i) ms += lastProfile_[i].second;
  return ms;
}

Status OpenClBackend::onSetProfiling(bool on) {
  if (on == profiling_) return Status::ok();
  cl_command_queue q = nullptr;
  TESSERA_RETURN_IF_ERROR(runtime_->createQueue(on, &q));
  clFinish(queue_);
  clReleaseCommandQueue(queue_);
  queue_ = q;
  profiling_ = on;
  return Status::ok();
}

namespace {

Status createOpenCl(const BackendOptions& o, std::unique_ptr<Backend>* out) {
  std::string selector = o.device;
  if (selector.empty())
    if (const char* e = std::getenv("TESSERA_OPENCL_DEVICE")) selector = e;
  std::shared_ptr<opencl::Runtime> rt;
  TESSERA_RETURN_IF_ERROR(opencl::Runtime::get(selector, &rt));
  const char* p = std::getenv("TESSERA_OPENCL_PROFILE");
  const bool profiling = p && std::string(p) != "0" && std::string(p) != "off";
  cl_command_queue q = nullptr;
  TESSERA_RETURN_IF_ERROR(rt->createQueue(profiling, &q));
  *out = std::make_unique<OpenClBackend>(rt, q, o, profiling);
  return Status::ok();
}

// The devices, and where the default one keeps NC4HW4 tensors (measured now if not cached yet).
std::string describeOpenCl() {
  std::string text = opencl::describeDevices();
  std::unique_ptr<Backend> b;
  if (createOpenCl(BackendOptions{}, &b).isOk()) {
    if (!text.empty() && text.back() != '\n') text += "\n";
    text += "NC4HW4 tensors on the default device (fp32): " +
            describeNc4Storage(static_cast<OpenClBackend*>(b.get())->nc4Storage()) + "\n";
  }
  return text;
}

BackendRegistrar registerOpenCl(BackendFactory{BackendType::kOpenCL, createOpenCl, describeOpenCl});

}  // namespace

}  // namespace tessera
