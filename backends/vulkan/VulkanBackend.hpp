// The Vulkan backend: NC4HW4 tensors in 2-D storage images (rgba32f, rgba16f in fp16 mode;
// pixel (x, y) = (c4 * W + w, n * H + h) as in OpenCL), other layouts in storage buffers;
// planned memory with reuse, commands
// recorded once per segment while planning (onResize) and submitted once per segment per
// run, host transfers through staging buffers, per-dispatch GPU timestamps.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/vulkan/VulkanContext.hpp"
#include "core/src/Nc4StorageChoice.hpp"
#include "tessera/Backend.hpp"
#include "tessera/ThreadPool.hpp"

namespace tessera {

struct VulkanBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;  // host-visible buffers only
};

// An NC4HW4 tensor's storage image (always in VK_IMAGE_LAYOUT_GENERAL once initialised).
struct VulkanImage {
  VkImage image = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint32_t width = 0, height = 0;
  VkDeviceSize bytes = 0;
};

// One tensor bound to a kernel: a storage image (view set), a whole buffer, or a range of
// a buffer.
struct VulkanBinding {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize range = VK_WHOLE_SIZE;
  VkImageView view = VK_NULL_HANDLE;
};

class VulkanBackend final : public Backend {
 public:
  VulkanBackend(std::shared_ptr<VulkanContext> ctx, const BackendOptions& options);
  ~VulkanBackend() override;

  std::string deviceName() const override;
  DeviceKind deviceKind() const override;
  std::unique_ptr<Execution> onCreate(const Node& node, const Tensors& inputs,
                                      const Tensors& outputs) override;
  Status onAcquireBuffer(Tensor* t, StorageType storage) override;
  Status onReleaseBuffer(Tensor* t, StorageType storage) override;
  bool onShareBuffer(Tensor* t, const Tensor* from) override;
  void onClearBuffers() override;
  Status onCopyBuffer(const Tensor* src, Tensor* dst) override;
  std::unique_ptr<Execution> onCreateCopy(const Tensor* src, Tensor* dst) override;
  void onResizeBegin() override;
  Status onResizeEnd() override;
  void onSegmentBegin(int segment) override;
  Status onSegmentEnd(int segment) override;
  void onExecuteBegin(int segment) override;
  Status onExecuteEnd(int segment) override;
  Status onSetProfiling(bool on) override {
    profiling_ = on;
    return Status::ok();
  }
  bool plansDependOnProfiling() const override { return timestampsWhenProfiling_; }
  size_t plannedPeakBytes() const override { return peakDynamicBytes_; }
  uint64_t recordedDispatches() const override { return recordedDispatches_; }

  VulkanContext& context() { return *ctx_; }

  // --- Recording, for executions' onResize (inside a segment) ---------------------------
  // Records `shader` over `count` invocations (1-D, 64 a group) with the 32-bit `params`
  // as push constants (at most 32) and binding i = buffers[i] (a storage image or buffer),
  // then a barrier for the next dispatch.
  // `timer`, when given, receives the id of the command's GPU timer (-1 when untimed).
  Status dispatch(vkshaders::ShaderId shader, const std::vector<VulkanBinding>& buffers,
                  const std::vector<uint32_t>& params, int64_t count, const std::string& label,
                  int* timer = nullptr);
  // The same for a kernel compiled at run time (custom kernels, tessera/VulkanKernel.hpp).
  Status dispatch(const std::vector<uint32_t>& spirv, const std::string& kernelName,
                  const std::vector<VulkanBinding>& buffers, const std::vector<uint32_t>& params, int64_t count,
                  const std::string& label, int* timer = nullptr);
  Status copy(VkBuffer src, VkDeviceSize srcOffset, VkBuffer dst, VkDeviceSize dstOffset,
              VkDeviceSize bytes, const std::string& label, int* timer = nullptr);
  // GPU time of a timed command in the last run (ms), or a negative value if unknown.
  double timerMs(int timer) const {
    return timer >= 0 && timer < static_cast<int>(timerMs_.size()) ? timerMs_[timer] : -1.0;
  }
  // Runs after the segment being recorded has been submitted and has finished (downloads).
  void afterSubmit(std::function<void()> fn);
  // Threads for the host side of uploads and downloads (core/src/ParallelCopy.hpp): up to
  // 8 of the Session's threads on a GPU; null (one thread) where the device is the CPU.
  ThreadPool* hostCopyPool();
  // A host-visible buffer living as long as the plan (staging, tables).
  Status planBuffer(VkDeviceSize bytes, VulkanBuffer** out);
  // A device buffer living as long as the plan (re-packed weights, scratch).
  Status planDeviceBuffer(VkDeviceSize bytes, VulkanBinding* out);
  // A buffer filled now with `data`, living as long as the plan (tables known at resize).
  Status planConstant(const void* data, size_t bytes, VulkanBinding* out);
  // The same in device memory, filled through a staging copy submitted now.
  Status planUpload(const void* data, size_t bytes, VulkanBinding* out);

  static VulkanBinding binding(const Tensor* t);
  // Whether f32 tensors of these shapes are NC4HW4 storage images here (the format is a
  // storage format on this device, images were chosen over buffers (nc4Storage) and the
  // pixel grid is within the image limits). Ops take NC4HW4 only when it holds for all
  // their tensors, else run their NCHW build.
  bool imagesFit(const Tensors& ts) const;
  // Images or buffers, and why (Nc4StorageChoice.hpp); decided on first use: forced, or the
  // measurement cached for this device, driver and precision, or measured now.
  const Nc4StorageChoice& nc4Storage() const;
  std::string nc4StorageDevice() const;  // its cache key: device, driver, precision
  // fp16 mode: f32 tensors are stored as fp16 on the device (kernels run their FP16 builds).
  bool fp16() const { return fp16_; }
  // Bytes of `t` on the device (half of byteSize() for f32 tensors in fp16 mode).
  VkDeviceSize storageBytes(const Tensor* t) const {
    return fp16_ && t->dtype() == DataType::kF32 ? static_cast<VkDeviceSize>(t->elementCount()) * 2 : t->byteSize();
  }

  // Per-dispatch GPU times (ms) of the last run, in execution order, from timestamp queries.
  std::vector<std::pair<std::string, double>> gpuProfile() const;

 private:
  // One segment's commands: recorded while planning, submitted at each run.
  struct Recording {
    VkCommandBuffer cb = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkQueryPool queries = VK_NULL_HANDLE;
    std::vector<std::string> labels;  // one per timestamp pair
    std::vector<int> timerIds;        // the global timer id of each pair
    std::vector<std::function<void()>> after;
    std::vector<std::pair<std::string, double>> times;  // of the last run
    bool empty = true;
  };

  Status createBuffer(VkDeviceSize bytes, bool hostVisible, std::unique_ptr<VulkanBuffer>* out);
  void destroyBuffer(VulkanBuffer& b);
  Status createImage(uint32_t width, uint32_t height, std::unique_ptr<VulkanImage>* out);
  void destroyImage(VulkanImage& img);
  Status acquireImage(Tensor* t, StorageType storage);
  Status initialiseImages();
  Status allocateDescriptorSet(int bindings, uint32_t imageMask, VkDescriptorSet* out);
  Status runOnce(const std::function<void(VkCommandBuffer)>& record);
  Status record(VkPipeline pipe, const char* kernelName, const std::vector<VulkanBinding>& buffers,
                const std::vector<uint32_t>& params, int64_t count, const std::string& label, int* timer);
  Recording* current();
  bool beginTimer(Recording* r, int* timer);
  void endTimer(Recording* r, const std::string& label);
  void dropPlan();

  std::shared_ptr<VulkanContext> ctx_;
  BackendOptions options_;
  std::unique_ptr<ThreadPool> hostCopyPool_;  // made when the first transfer is planned
  bool fp16_ = false;
  // Time each dispatch (where the device can): in every plan, or in plans made while profiling.
  bool timestampsAlways_ = false, timestampsWhenProfiling_ = false;
  bool profiling_ = false;
  bool subgroups_ = false;  // run SUBGROUP builds (subgroupTrees(), TESSERA_VULKAN_SUBGROUPS)
  VkCommandPool commandPool_ = VK_NULL_HANDLE;
  // Plan-lifetime objects.
  std::vector<std::unique_ptr<VulkanBuffer>> staticBuffers_;
  std::map<const Tensor*, VulkanBuffer*> dynamicInUse_;
  std::vector<std::unique_ptr<VulkanBuffer>> dynamicBuffers_;  // every dynamic buffer
  std::vector<VulkanBuffer*> dynamicFree_;
  std::vector<std::unique_ptr<VulkanImage>> staticImages_;
  std::map<const Tensor*, VulkanImage*> imagesInUse_;
  std::vector<std::unique_ptr<VulkanImage>> dynamicImages_;  // every dynamic image
  std::vector<VulkanImage*> imagesFree_;
  std::vector<VkImage> imagesToInitialise_;  // created since the last initialiseImages()
  bool imageFormatUsable_ = false;  // the device can hold NC4HW4 storage images at all
  mutable std::unique_ptr<Nc4StorageChoice> nc4Storage_;  // decided on first use
  size_t dynamicBytes_ = 0, peakDynamicBytes_ = 0;
  std::vector<VkDescriptorPool> descriptorPools_;
  std::map<int, std::unique_ptr<Recording>> recordings_;
  int recordingSegment_ = -1;
  uint64_t validationErrorsSeen_ = 0;
  std::vector<double> timerMs_;  // by timer id, of the last run
  uint64_t recordedDispatches_ = 0;  // every vkCmdDispatch recorded (Backend::recordedDispatches)
};

// Base of every Vulkan execution: records in onResize, nothing to do in onExecute.
class VulkanExecution : public Execution {
 public:
  VulkanExecution(Backend* b, std::string label) : Execution(b), label_(std::move(label)) {}
  Status onExecute(const Tensors&, const Tensors&) override { return Status::ok(); }
  VulkanBackend& vk() const { return *static_cast<VulkanBackend*>(backend()); }
  const std::string& label() const { return label_; }
  // The sum of this execution's dispatches in the last run, from timestamp queries.
  bool deviceTimeMs(double* ms) const override {
    double sum = 0;
    for (int t : timers_) {
      const double v = static_cast<const VulkanBackend*>(backend())->timerMs(t);
      if (v < 0) return false;
      sum += v;
    }
    *ms = sum;
    return !timers_.empty();
  }

  // Records through the backend and keeps the command's GPU timer for deviceTimeMs.
  Status dispatch(vkshaders::ShaderId shader, const std::vector<VulkanBinding>& buffers,
                  const std::vector<uint32_t>& params, int64_t count) {
    int timer = -1;
    Status st = vk().dispatch(shader, buffers, params, count, label_, &timer);
    if (timer >= 0) timers_.push_back(timer);
    return st;
  }
  Status copy(VkBuffer src, VkBuffer dst, VkDeviceSize bytes) {
    int timer = -1;
    Status st = vk().copy(src, 0, dst, 0, bytes, label_, &timer);
    if (timer >= 0) timers_.push_back(timer);
    return st;
  }
  // Timers of a strided copy etc. recorded through the backend directly.
  void addTimer(int timer) { if (timer >= 0) timers_.push_back(timer); }

 private:
  std::string label_;
  std::vector<int> timers_;
};

// Params helpers: a float as its bits; tensors are f32 for every kernel here.
inline uint32_t floatBits(float f) {
  uint32_t u;
  static_assert(sizeof u == sizeof f, "");
  __builtin_memcpy(&u, &f, 4);
  return u;
}
bool allFloat32(const Tensors& ts, size_t count = SIZE_MAX);

}  // namespace tessera
