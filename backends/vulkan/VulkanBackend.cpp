#include "backends/vulkan/VulkanBackend.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "tessera/Registry.hpp"

namespace tessera {
namespace vulkan {
void publishGpuProfile(std::vector<std::pair<std::string, double>> p);  // VulkanDiagnostics.cpp
void countSubgroupDispatch();                                            // VulkanDiagnostics.cpp
}  // namespace vulkan

namespace {
constexpr uint32_t kLocalSize = 64;        // every kernel's local_size_x (common.glsl)
constexpr uint32_t kMaxGroupsX = 65535;    // guaranteed maxComputeWorkGroupCount[0]
constexpr uint32_t kMaxTimestamps = 4096;  // per segment
constexpr uint32_t kSetsPerPool = 256;
}  // namespace

bool allFloat32(const Tensors& ts, size_t count) {
  for (size_t i = 0; i < ts.size() && i < count; ++i)
    if (ts[i] && ts[i]->dtype() != DataType::kF32) return false;
  return true;
}

VulkanBackend::VulkanBackend(std::shared_ptr<VulkanContext> ctx, const BackendOptions& options)
    : Backend(BackendType::kVulkan), ctx_(std::move(ctx)), options_(options) {
  VkCommandPoolCreateInfo ci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  ci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  ci.queueFamilyIndex = ctx_->info().computeQueueFamily;
  vkCreateCommandPool(ctx_->device(), &ci, nullptr, &commandPool_);
  validationErrorsSeen_ = VulkanContext::validationErrorCount();
  fp16_ = options.precision == Precision::kFP16 && ctx_->info().fp16Storage;
  const char* sg = std::getenv("TESSERA_VULKAN_SUBGROUPS");
  subgroups_ = ctx_->info().subgroupTrees() && !(sg && std::strcmp(sg, "0") == 0);
  // Timestamp queries around each dispatch only while profiling: an H200 ran PaddleOCR's
  // models 0.25-0.45 ms slower with them (cls 0.77 -> 0.52 ms without). TESSERA_VULKAN_TIMESTAMPS
  // = always records them in every plan (tests read vulkan::lastGpuProfile() so), 0 never.
  const char* ts = std::getenv("TESSERA_VULKAN_TIMESTAMPS");
  const std::string mode = ts ? ts : "";
  timestampsAlways_ = ctx_->info().timestamps && mode == "always";
  timestampsWhenProfiling_ = ctx_->info().timestamps && mode != "always" && mode != "0";
  imageFormatUsable_ = ctx_->storageImageFormat(VulkanContext::imageFormat(fp16_));
}

std::string VulkanBackend::nc4StorageDevice() const {
  const VulkanDeviceInfo& d = ctx_->info();
  return "vulkan|" + d.name + "|" + std::to_string(d.vendorId) + ":" + std::to_string(d.deviceId) + "|driver " +
         std::to_string(d.driverVersion) + (fp16_ ? "|fp16" : "|fp32");
}

const Nc4StorageChoice& VulkanBackend::nc4Storage() const {
  if (nc4Storage_) return *nc4Storage_;
  if (!imageFormatUsable_) {
    nc4Storage_ = std::make_unique<Nc4StorageChoice>();
    nc4Storage_->images = false;
    nc4Storage_->why = "the device has no storage images in this format";
  } else {
    nc4Storage_ = std::make_unique<Nc4StorageChoice>(
        chooseNc4Storage(BackendType::kVulkan, options_, nc4StorageDevice(), "TESSERA_VULKAN_NC4_STORAGE"));
  }
  return *nc4Storage_;
}

std::string VulkanBackend::deviceName() const {
  if (options_.precision != Precision::kFP16) return ctx_->info().name;
  return ctx_->info().name + (fp16_ ? " (fp16 storage, fp32 arithmetic)"
                                    : " (fp16 requested, but no 16-bit storage buffers: running fp32)");
}

DeviceKind VulkanBackend::deviceKind() const {
  switch (ctx_->info().type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return DeviceKind::kDiscreteGPU;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return DeviceKind::kIntegratedGPU;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return DeviceKind::kCPU;
    default: return DeviceKind::kOther;
  }
}

std::unique_ptr<Execution> VulkanBackend::onCreate(const Node& node, const Tensors& inputs,
                                                   const Tensors& outputs) {
  const ExecutionCreator* c = ExecutionRegistry::instance().find(BackendType::kVulkan, node.opType);
  if (!c) return nullptr;
  for (const Tensor* t : outputs)  // buffers of more than maxStorageBufferRange cannot bind
    if (t && t->byteSize() > ctx_->info().limits.maxStorageBufferRange) return nullptr;
  for (const Tensor* t : inputs)
    if (t && t->byteSize() > ctx_->info().limits.maxStorageBufferRange) return nullptr;
  return (*c)(this, node, inputs, outputs);
}

// ---- planning -------------------------------------------------------------------------------

void VulkanBackend::dropPlan() {
  VkDevice dev = ctx_->device();
  for (auto& kv : recordings_) {
    Recording& r = *kv.second;
    if (r.cb) vkFreeCommandBuffers(dev, commandPool_, 1, &r.cb);
    if (r.fence) vkDestroyFence(dev, r.fence, nullptr);
    if (r.queries) vkDestroyQueryPool(dev, r.queries, nullptr);
  }
  recordings_.clear();
  timerMs_.clear();
  for (VkDescriptorPool p : descriptorPools_) vkDestroyDescriptorPool(dev, p, nullptr);
  descriptorPools_.clear();
  for (auto& b : staticBuffers_) destroyBuffer(*b);
  staticBuffers_.clear();
  for (auto& img : staticImages_) destroyImage(*img);
  staticImages_.clear();
}

void VulkanBackend::onResizeBegin() {
  {
    // The queue is shared by every session on this context: Vulkan requires its users to
    // synchronise access (the same lock as vkQueueSubmit).
    std::lock_guard<std::mutex> lock(ctx_->queueMutex());
    vkQueueWaitIdle(ctx_->queue());
  }
  dropPlan();
  onClearBuffers();
}

Status VulkanBackend::onResizeEnd() {
  ctx_->savePipelineCache();
  return initialiseImages();
}

VulkanBackend::Recording* VulkanBackend::current() {
  auto it = recordings_.find(recordingSegment_);
  return it == recordings_.end() ? nullptr : it->second.get();
}

void VulkanBackend::onSegmentBegin(int segment) {
  VkDevice dev = ctx_->device();
  auto rec = std::make_unique<Recording>();
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = commandPool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  vkAllocateCommandBuffers(dev, &ai, &rec->cb);
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  vkCreateFence(dev, &fi, nullptr, &rec->fence);
  if (timestampsAlways_ || (timestampsWhenProfiling_ && profiling_)) {
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = kMaxTimestamps;
    vkCreateQueryPool(dev, &qi, nullptr, &rec->queries);
  }
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vkBeginCommandBuffer(rec->cb, &bi);
  if (rec->queries) vkCmdResetQueryPool(rec->cb, rec->queries, 0, kMaxTimestamps);
  recordings_[segment] = std::move(rec);
  recordingSegment_ = segment;
}

Status VulkanBackend::onSegmentEnd(int segment) {
  Recording* r = current();
  if (!r || recordingSegment_ != segment) return Status::internal("Vulkan: segment " + std::to_string(segment) + " was not begun");
  // Make every write visible to the host reads that follow the fence wait (downloads).
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(r->cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  VkResult res = vkEndCommandBuffer(r->cb);
  recordingSegment_ = -1;
  if (res != VK_SUCCESS) return Status::internal("Vulkan: recording segment " + std::to_string(segment) + ": " + vkResultName(res));
  return Status::ok();
}

void VulkanBackend::onExecuteBegin(int) {}

Status VulkanBackend::onExecuteEnd(int segment) {
  TESSERA_RETURN_IF_ERROR(initialiseImages());  // normally done at the end of planning
  auto it = recordings_.find(segment);
  if (it == recordings_.end()) return Status::internal("Vulkan: segment " + std::to_string(segment) + " was never recorded");
  Recording& r = *it->second;
  VkDevice dev = ctx_->device();
  if (!r.empty) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &r.cb;
    VkResult res;
    {
      std::lock_guard<std::mutex> lock(ctx_->queueMutex());
      res = vkQueueSubmit(ctx_->queue(), 1, &si, r.fence);
    }
    if (res != VK_SUCCESS) return Status::internal("Vulkan: vkQueueSubmit: " + vkResultName(res));
    res = vkWaitForFences(dev, 1, &r.fence, VK_TRUE, UINT64_MAX);
    vkResetFences(dev, 1, &r.fence);
    if (res != VK_SUCCESS) return Status::internal("Vulkan: waiting for segment " + std::to_string(segment) + ": " + vkResultName(res));
    if (r.queries && !r.labels.empty()) {
      std::vector<uint64_t> ts(r.labels.size() * 2);
      if (vkGetQueryPoolResults(dev, r.queries, 0, static_cast<uint32_t>(ts.size()), ts.size() * 8, ts.data(), 8,
                                VK_QUERY_RESULT_64_BIT) == VK_SUCCESS) {
        r.times.clear();
        const double period = ctx_->info().timestampPeriodNs;
        for (size_t i = 0; i < r.labels.size(); ++i) {
          const double ms = static_cast<double>(ts[2 * i + 1] - ts[2 * i]) * period * 1e-6;
          r.times.push_back({r.labels[i], ms});
          timerMs_[r.timerIds[i]] = ms;
        }
        vulkan::publishGpuProfile(gpuProfile());
      }
    }
  }
  for (auto& fn : r.after) fn();
  const uint64_t errors = VulkanContext::validationErrorCount();
  if (errors != validationErrorsSeen_) {
    const uint64_t fresh = errors - validationErrorsSeen_;
    validationErrorsSeen_ = errors;
    return Status::internal("Vulkan validation layer reported " + std::to_string(fresh) +
                            " error(s); last: " + VulkanContext::lastValidationMessage());
  }
  return Status::ok();
}

std::vector<std::pair<std::string, double>> VulkanBackend::gpuProfile() const {
  std::vector<std::pair<std::string, double>> out;
  for (auto& kv : recordings_) out.insert(out.end(), kv.second->times.begin(), kv.second->times.end());
  return out;
}

// ---- recording ----------------------------------------------------------------------------

Status VulkanBackend::allocateDescriptorSet(int bindings, uint32_t imageMask, VkDescriptorSet* out) {
  VkDescriptorSetLayout layout = ctx_->setLayout(bindings, imageMask);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!descriptorPools_.empty()) {
      VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      ai.descriptorPool = descriptorPools_.back();
      ai.descriptorSetCount = 1;
      ai.pSetLayouts = &layout;
      if (vkAllocateDescriptorSets(ctx_->device(), &ai, out) == VK_SUCCESS) return Status::ok();
    }
    const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 8},
                                          {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, kSetsPerPool * 8}};
    VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = kSetsPerPool;
    pi.poolSizeCount = 2;
    pi.pPoolSizes = sizes;
    VkDescriptorPool pool;
    VkResult r = vkCreateDescriptorPool(ctx_->device(), &pi, nullptr, &pool);
    if (r != VK_SUCCESS) return Status::outOfMemory("Vulkan: descriptor pool: " + vkResultName(r));
    descriptorPools_.push_back(pool);
  }
  return Status::internal("Vulkan: cannot allocate a descriptor set");
}

namespace {
void barrier(VkCommandBuffer cb) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(cb, stages, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
}
}  // namespace

bool VulkanBackend::beginTimer(Recording* r, int* timer) {
  if (timer) *timer = -1;
  if (!r->queries || (r->labels.size() + 1) * 2 > kMaxTimestamps) return false;
  vkCmdWriteTimestamp(r->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, static_cast<uint32_t>(r->labels.size() * 2));
  if (timer) *timer = static_cast<int>(timerMs_.size());
  return true;
}

void VulkanBackend::endTimer(Recording* r, const std::string& label) {
  vkCmdWriteTimestamp(r->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, static_cast<uint32_t>(r->labels.size() * 2 + 1));
  r->labels.push_back(label);
  r->timerIds.push_back(static_cast<int>(timerMs_.size()));
  timerMs_.push_back(-1.0);
}

namespace {
uint32_t imageMaskOf(const std::vector<VulkanBinding>& buffers) {
  uint32_t mask = 0;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].view) mask |= 1u << i;
  return mask;
}
}  // namespace

Status VulkanBackend::dispatch(vkshaders::ShaderId shader, const std::vector<VulkanBinding>& buffers,
                               const std::vector<uint32_t>& params, int64_t count, const std::string& label,
                               int* timer) {
  if (timer) *timer = -1;
  if (!current()) return Status::internal("Vulkan: dispatch of '" + label + "' outside a recorded segment");
  if (count <= 0) return Status::ok();
  if (fp16_) shader = vkshaders::fp16Of(shader);
  if (subgroups_ && shader->subgroup) {
    shader = shader->subgroup;
    vulkan::countSubgroupDispatch();
  }
  VkPipeline pipe;
  TESSERA_RETURN_IF_ERROR(ctx_->pipeline(shader, static_cast<int>(buffers.size()), imageMaskOf(buffers), &pipe));
  return record(pipe, shader->name, buffers, params, count, label, timer);
}

Status VulkanBackend::dispatch(const std::vector<uint32_t>& spirv, const std::string& kernelName,
                               const std::vector<VulkanBinding>& buffers, const std::vector<uint32_t>& params,
                               int64_t count, const std::string& label, int* timer) {
  if (timer) *timer = -1;
  if (!current()) return Status::internal("Vulkan: dispatch of '" + label + "' outside a recorded segment");
  if (count <= 0) return Status::ok();
  VkPipeline pipe;
  TESSERA_RETURN_IF_ERROR(
      ctx_->pipeline(spirv, kernelName, static_cast<int>(buffers.size()), imageMaskOf(buffers), &pipe));
  return record(pipe, kernelName.c_str(), buffers, params, count, label, timer);
}

Status VulkanBackend::record(VkPipeline pipe, const char* kernelName, const std::vector<VulkanBinding>& buffers,
                             const std::vector<uint32_t>& params, int64_t count, const std::string& label,
                             int* timer) {
  Recording* r = current();
  const int bindings = static_cast<int>(buffers.size());
  if (params.size() * 4 > VulkanContext::kPushConstantBytes)
    return Status::internal("Vulkan: '" + label + "' passes " + std::to_string(params.size()) + " parameters (at most 32)");
  const uint32_t imageMask = imageMaskOf(buffers);
  VkDescriptorSet set;
  TESSERA_RETURN_IF_ERROR(allocateDescriptorSet(bindings, imageMask, &set));
  std::vector<VkDescriptorBufferInfo> infos(bindings);
  std::vector<VkDescriptorImageInfo> images(bindings);
  std::vector<VkWriteDescriptorSet> writes(bindings);
  for (int i = 0; i < bindings; ++i) {
    const VulkanBinding& b = buffers[i];
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<uint32_t>(i);
    writes[i].descriptorCount = 1;
    if (b.view) {
      images[i] = {VK_NULL_HANDLE, b.view, VK_IMAGE_LAYOUT_GENERAL};
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
      writes[i].pImageInfo = &images[i];
    } else {
      infos[i] = {b.buffer, b.offset, b.range};
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
  }
  vkUpdateDescriptorSets(ctx_->device(), static_cast<uint32_t>(bindings), writes.data(), 0, nullptr);
  const uint64_t groups = (static_cast<uint64_t>(count) + kLocalSize - 1) / kLocalSize;
  const uint32_t gx = static_cast<uint32_t>(std::min<uint64_t>(groups, kMaxGroupsX));
  const uint32_t gy = static_cast<uint32_t>((groups + gx - 1) / gx);
  const bool timed = beginTimer(r, timer);
  vkCmdBindPipeline(r->cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
  const VkPipelineLayout layout = ctx_->pipelineLayout(bindings, imageMask);
  vkCmdBindDescriptorSets(r->cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
  uint32_t push[VulkanContext::kPushConstantBytes / 4] = {};
  std::copy(params.begin(), params.end(), push);
  vkCmdPushConstants(r->cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, VulkanContext::kPushConstantBytes, push);
  vkCmdDispatch(r->cb, gx, gy, 1);
  ++recordedDispatches_;
  if (timed) endTimer(r, label + " [" + kernelName + "]");
  barrier(r->cb);
  r->empty = false;
  return Status::ok();
}

Status VulkanBackend::copy(VkBuffer src, VkDeviceSize srcOffset, VkBuffer dst, VkDeviceSize dstOffset,
                           VkDeviceSize bytes, const std::string& label, int* timer) {
  if (timer) *timer = -1;
  Recording* r = current();
  if (!r) return Status::internal("Vulkan: copy '" + label + "' outside a recorded segment");
  if (bytes == 0) return Status::ok();
  VkBufferCopy region{srcOffset, dstOffset, bytes};
  const bool timed = beginTimer(r, timer);
  vkCmdCopyBuffer(r->cb, src, dst, 1, &region);
  if (timed) endTimer(r, label + " [copy]");
  barrier(r->cb);
  r->empty = false;
  return Status::ok();
}

ThreadPool* VulkanBackend::hostCopyPool() {
  const int threads = std::min(options_.threads, 8);
  if (threads <= 1 || deviceKind() == DeviceKind::kCPU) return nullptr;
  if (!hostCopyPool_) hostCopyPool_ = std::make_unique<ThreadPool>(threads);
  return hostCopyPool_.get();
}

void VulkanBackend::afterSubmit(std::function<void()> fn) {
  if (Recording* r = current()) {
    r->after.push_back(std::move(fn));
    r->empty = false;
  }
}

// ---- immediate copies -----------------------------------------------------------------------

Status VulkanBackend::runOnce(const std::function<void(VkCommandBuffer)>& record) {
  VkDevice dev = ctx_->device();
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = commandPool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cb;
  vkAllocateCommandBuffers(dev, &ai, &cb);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(cb, &bi);
  record(cb);
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  vkEndCommandBuffer(cb);
  VkFence fence;
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  vkCreateFence(dev, &fi, nullptr, &fence);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  VkResult r;
  {
    std::lock_guard<std::mutex> lock(ctx_->queueMutex());
    r = vkQueueSubmit(ctx_->queue(), 1, &si, fence);
  }
  if (r == VK_SUCCESS) r = vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
  vkDestroyFence(dev, fence, nullptr);
  vkFreeCommandBuffers(dev, commandPool_, 1, &cb);
  return r == VK_SUCCESS ? Status::ok() : Status::internal("Vulkan: transfer failed: " + vkResultName(r));
}

Status VulkanBackend::onCopyBuffer(const Tensor* src, Tensor* dst) {
  if (src->shape() != dst->shape() || src->dtype() != dst->dtype() || src->layout() != dst->layout())
    return Status::unsupported("Vulkan copy: immediate copies keep shape, dtype and layout (" + src->describe() +
                               " -> " + dst->describe() + ")");
  const bool fromHost = src->backend() != this, toHost = dst->backend() != this;
  if (fromHost && toHost) return Status::internal("Vulkan copy: neither tensor is on this backend");
  if (src->layout() == Layout::kNC4HW4)  // the Session plans image copies (VulkanCopy.cpp)
    return Status::unsupported("Vulkan copy: immediate copies of NC4HW4 images (" + src->describe() +
                               ") are not supported; plan the copy instead");
  const VkDeviceSize bytes = storageBytes(fromHost ? dst : src);
  const bool half = bytes != src->byteSize();  // f32 stored as fp16: convert on the host
  std::unique_ptr<VulkanBuffer> staging;
  if (fromHost || toHost) TESSERA_RETURN_IF_ERROR(createBuffer(bytes, true, &staging));
  if (fromHost && !half) std::memcpy(staging->mapped, src->data(), bytes);
  if (fromHost && half) {
    Tensor h = Tensor::hostWrap(staging->mapped, src->shape(), DataType::kF16);
    convertDataType(*src, h);
  }
  VkBuffer s = fromHost ? staging->buffer : binding(src).buffer;
  VkBuffer d = toHost ? staging->buffer : binding(dst).buffer;
  Status st = runOnce([&](VkCommandBuffer cb) {
    VkBufferCopy region{0, 0, std::max<VkDeviceSize>(bytes, 1)};
    if (bytes) vkCmdCopyBuffer(cb, s, d, 1, &region);
  });
  if (st.isOk() && toHost && !half) std::memcpy(dst->data(), staging->mapped, bytes);
  if (st.isOk() && toHost && half) convertDataType(Tensor::hostWrap(staging->mapped, src->shape(), DataType::kF16), *dst);
  if (staging) destroyBuffer(*staging);
  return st;
}

// ---- registration -------------------------------------------------------------------------

namespace {
BackendRegistrar registerVulkan(BackendFactory{
    BackendType::kVulkan,
    [](const BackendOptions& o, std::unique_ptr<Backend>* out) {
      std::shared_ptr<VulkanContext> ctx;
      TESSERA_RETURN_IF_ERROR(VulkanContext::get(o.device, &ctx));
      *out = std::make_unique<VulkanBackend>(std::move(ctx), o);
      return Status::ok();
    },
    [] {
      // Where the default device keeps NC4HW4 tensors, in fp32 and, where it can store fp16,
      // in fp16 (each measured now if not cached yet; the two choices may differ).
      std::string text = VulkanContext::describeDevices();
      std::shared_ptr<VulkanContext> ctx;
      if (VulkanContext::get("", &ctx).isOk()) {
        if (!text.empty() && text.back() != '\n') text += "\n";
        text += "  NC4HW4 tensors on the default device (fp32): " +
                describeNc4Storage(VulkanBackend(ctx, BackendOptions{}).nc4Storage()) + "\n";
        if (ctx->info().fp16Storage) {
          BackendOptions half;
          half.precision = Precision::kFP16;
          text += "  NC4HW4 tensors on the default device (fp16): " +
                  describeNc4Storage(VulkanBackend(ctx, half).nc4Storage()) + "\n";
        }
      }
      return text;
    }});
}  // namespace

}  // namespace tessera
