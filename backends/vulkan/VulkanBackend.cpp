#include "backends/vulkan/VulkanBackend.hpp"

#include <algorithm>
#include <cstring>

#include "tessera/Registry.hpp"

namespace tessera {
namespace vulkan {
void publishGpuProfile(std::vector<std::pair<std::string, double>> p);  // VulkanDiagnostics.cpp
}  // namespace vulkan

namespace {
constexpr uint32_t kLocalSize = 64;        // every kernel's local_size_x (common.glsl)
constexpr uint32_t kMaxGroupsX = 65535;    // guaranteed maxComputeWorkGroupCount[0]
constexpr uint32_t kMaxTimestamps = 4096;  // per segment
constexpr uint32_t kSetsPerPool = 256;
}  // namespace

struct VulkanBackend::Recording {
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkQueryPool queries = VK_NULL_HANDLE;
  std::vector<std::string> labels;  // one per timestamp pair
  std::vector<int> timerIds;        // the global timer id of each pair
  std::vector<std::function<void()>> after;
  std::vector<std::pair<std::string, double>> times;  // of the last run
  bool empty = true;
};

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
  imagesUsable_ = ctx_->storageImageFormat(VulkanContext::imageFormat(fp16_));
}

bool VulkanBackend::imagesFit(const Tensors& ts) const {
  if (!imagesUsable_) return false;
  const int64_t limit = ctx_->info().limits.maxImageDimension2D;
  for (const Tensor* t : ts) {
    if (!t) continue;
    const Nc4Geometry g = nc4Geometry(t->shape());
    if (t->dtype() != DataType::kF32 || t->rank() < 3 || t->elementCount() == 0) return false;
    if (g.width() > limit || g.height() > limit) return false;
  }
  return true;
}

VulkanBackend::~VulkanBackend() {
  vkDeviceWaitIdle(ctx_->device());
  dropPlan();
  for (auto& b : dynamicBuffers_) destroyBuffer(*b);
  dynamicBuffers_.clear();
  for (auto& img : dynamicImages_) destroyImage(*img);
  dynamicImages_.clear();
  vkDestroyCommandPool(ctx_->device(), commandPool_, nullptr);
  ctx_->savePipelineCache();
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

// ---- memory -------------------------------------------------------------------------------

Status VulkanBackend::createBuffer(VkDeviceSize bytes, bool hostVisible, std::unique_ptr<VulkanBuffer>* out) {
  auto b = std::make_unique<VulkanBuffer>();
  b->size = std::max<VkDeviceSize>(bytes, 16);
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = b->size;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkDevice dev = ctx_->device();
  VkResult r = vkCreateBuffer(dev, &bi, nullptr, &b->buffer);
  if (r != VK_SUCCESS) return Status::outOfMemory("Vulkan: vkCreateBuffer(" + std::to_string(bytes) + " bytes): " + vkResultName(r));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, b->buffer, &req);
  const uint32_t type = hostVisible
      ? ctx_->memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
      : ctx_->memoryType(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (type == UINT32_MAX) {
    vkDestroyBuffer(dev, b->buffer, nullptr);
    return Status::unsupported("Vulkan: no suitable memory type for a buffer");
  }
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  r = vkAllocateMemory(dev, &ai, nullptr, &b->memory);
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(dev, b->buffer, nullptr);
    return Status::outOfMemory("Vulkan: cannot allocate " + std::to_string(bytes) + " bytes: " + vkResultName(r));
  }
  vkBindBufferMemory(dev, b->buffer, b->memory, 0);
  if (hostVisible) vkMapMemory(dev, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped);
  *out = std::move(b);
  return Status::ok();
}

void VulkanBackend::destroyBuffer(VulkanBuffer& b) {
  if (b.mapped) vkUnmapMemory(ctx_->device(), b.memory);
  vkDestroyBuffer(ctx_->device(), b.buffer, nullptr);
  vkFreeMemory(ctx_->device(), b.memory, nullptr);
  b = VulkanBuffer();
}

Status VulkanBackend::createImage(uint32_t width, uint32_t height, std::unique_ptr<VulkanImage>* out) {
  VkDevice dev = ctx_->device();
  auto img = std::make_unique<VulkanImage>();
  img->width = width;
  img->height = height;
  VkImageCreateInfo ii{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ii.imageType = VK_IMAGE_TYPE_2D;
  ii.format = VulkanContext::imageFormat(fp16_);
  ii.extent = {width, height, 1};
  ii.mipLevels = 1;
  ii.arrayLayers = 1;
  ii.samples = VK_SAMPLE_COUNT_1_BIT;
  ii.tiling = VK_IMAGE_TILING_OPTIMAL;
  ii.usage = VK_IMAGE_USAGE_STORAGE_BIT;
  ii.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  const std::string what = "a " + std::to_string(width) + "x" + std::to_string(height) + " storage image";
  VkResult r = vkCreateImage(dev, &ii, nullptr, &img->image);
  if (r != VK_SUCCESS) return Status::outOfMemory("Vulkan: vkCreateImage(" + what + "): " + vkResultName(r));
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(dev, img->image, &req);
  const uint32_t type = ctx_->memoryType(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  r = type == UINT32_MAX ? VK_ERROR_FEATURE_NOT_PRESENT : vkAllocateMemory(dev, &ai, nullptr, &img->memory);
  if (r != VK_SUCCESS) {
    vkDestroyImage(dev, img->image, nullptr);
    return Status::outOfMemory("Vulkan: cannot allocate " + std::to_string(req.size) + " bytes for " + what + ": " +
                               vkResultName(r));
  }
  img->bytes = req.size;
  vkBindImageMemory(dev, img->image, img->memory, 0);
  VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  vi.image = img->image;
  vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
  vi.format = ii.format;
  vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  r = vkCreateImageView(dev, &vi, nullptr, &img->view);
  if (r != VK_SUCCESS) {
    destroyImage(*img);
    return Status::internal("Vulkan: image view of " + what + ": " + vkResultName(r));
  }
  imagesToInitialise_.push_back(img->image);
  *out = std::move(img);
  return Status::ok();
}

void VulkanBackend::destroyImage(VulkanImage& img) {
  VkDevice dev = ctx_->device();
  if (img.view) vkDestroyImageView(dev, img.view, nullptr);
  if (img.image) vkDestroyImage(dev, img.image, nullptr);
  if (img.memory) vkFreeMemory(dev, img.memory, nullptr);
  img = VulkanImage();
}

// New images go from UNDEFINED to GENERAL once, before any recorded segment can run.
Status VulkanBackend::initialiseImages() {
  if (imagesToInitialise_.empty()) return Status::ok();
  std::vector<VkImageMemoryBarrier> barriers;
  for (VkImage image : imagesToInitialise_) {
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = 0;
    b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    barriers.push_back(b);
  }
  imagesToInitialise_.clear();
  return runOnce([&](VkCommandBuffer cb) {
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr,
                         0, nullptr, static_cast<uint32_t>(barriers.size()), barriers.data());
  });
}

Status VulkanBackend::acquireImage(Tensor* t, StorageType storage) {
  if (!imagesFit({t}))
    return Status::internal("Vulkan: tensor " + t->describe() + " cannot be an NC4HW4 storage image here");
  const Nc4Geometry g = nc4Geometry(t->shape());
  const uint32_t width = static_cast<uint32_t>(g.width()), height = static_cast<uint32_t>(g.height());
  VulkanImage* img = nullptr;
  if (storage == StorageType::kStatic) {
    std::unique_ptr<VulkanImage> ni;
    TESSERA_RETURN_IF_ERROR(createImage(width, height, &ni).withContext("tensor " + t->describe()));
    img = ni.get();
    staticImages_.push_back(std::move(ni));
  } else {
    // Released images of the same extent are reused (same ordering argument as buffers).
    for (auto it = imagesFree_.begin(); it != imagesFree_.end() && !img; ++it)
      if ((*it)->width == width && (*it)->height == height) {
        img = *it;
        imagesFree_.erase(it);
        break;
      }
    if (!img) {
      std::unique_ptr<VulkanImage> ni;
      TESSERA_RETURN_IF_ERROR(createImage(width, height, &ni).withContext("tensor " + t->describe()));
      img = ni.get();
      dynamicImages_.push_back(std::move(ni));
    }
    imagesInUse_[t] = img;
    dynamicBytes_ += img->bytes;
    peakDynamicBytes_ = std::max(peakDynamicBytes_, dynamicBytes_);
  }
  t->setDevice(this, img);
  return Status::ok();
}

Status VulkanBackend::onAcquireBuffer(Tensor* t, StorageType storage) {
  if (t->layout() == Layout::kNC4HW4) return acquireImage(t, storage);
  if (t->layout() != Layout::kNCHW)
    return Status::internal("Vulkan: tensor " + t->describe() + " must be NCHW or NC4HW4 on this backend");
  const VkDeviceSize bytes = std::max<VkDeviceSize>(storageBytes(t), 16);
  if (storage == StorageType::kStatic) {
    std::unique_ptr<VulkanBuffer> b;
    TESSERA_RETURN_IF_ERROR(createBuffer(bytes, false, &b).withContext("tensor " + t->describe()));
    t->setDevice(this, b.get());
    staticBuffers_.push_back(std::move(b));
    return Status::ok();
  }
  // Best fit among released buffers; buffers are reused in recording order, and every
  // dispatch ends with a barrier, so a reused buffer is never written while still read.
  auto best = dynamicFree_.end();
  for (auto it = dynamicFree_.begin(); it != dynamicFree_.end(); ++it)
    if ((*it)->size >= bytes && (best == dynamicFree_.end() || (*it)->size < (*best)->size)) best = it;
  VulkanBuffer* b = nullptr;
  if (best != dynamicFree_.end() && (*best)->size <= bytes * 4) {
    b = *best;
    dynamicFree_.erase(best);
  } else {
    std::unique_ptr<VulkanBuffer> nb;
    TESSERA_RETURN_IF_ERROR(createBuffer(bytes, false, &nb).withContext("tensor " + t->describe()));
    b = nb.get();
    dynamicBuffers_.push_back(std::move(nb));
  }
  dynamicInUse_[t] = b;
  dynamicBytes_ += b->size;
  peakDynamicBytes_ = std::max(peakDynamicBytes_, dynamicBytes_);
  t->setDevice(this, b);
  return Status::ok();
}

Status VulkanBackend::onReleaseBuffer(Tensor* t, StorageType storage) {
  if (storage == StorageType::kStatic) return Status::ok();  // freed with the plan
  auto img = imagesInUse_.find(t);
  if (img != imagesInUse_.end()) {
    dynamicBytes_ -= img->second->bytes;
    imagesFree_.push_back(img->second);
    imagesInUse_.erase(img);
    return Status::ok();
  }
  auto it = dynamicInUse_.find(t);
  if (it == dynamicInUse_.end())
    return Status::internal("Vulkan: releasing tensor " + t->describe() + " that was never acquired");
  dynamicBytes_ -= it->second->size;
  dynamicFree_.push_back(it->second);
  dynamicInUse_.erase(it);
  return Status::ok();
}

void VulkanBackend::onClearBuffers() {
  // Buffers stay allocated for the next plan to reuse; only the assignment is dropped.
  dynamicInUse_.clear();
  dynamicFree_.clear();
  for (auto& b : dynamicBuffers_) dynamicFree_.push_back(b.get());
  imagesInUse_.clear();
  imagesFree_.clear();
  for (auto& img : dynamicImages_) imagesFree_.push_back(img.get());
  dynamicBytes_ = 0;
  peakDynamicBytes_ = 0;
}

VulkanBinding VulkanBackend::binding(const Tensor* t) {
  if (t->layout() == Layout::kNC4HW4) {
    VulkanBinding out;
    out.view = static_cast<const VulkanImage*>(t->deviceHandle())->view;
    return out;
  }
  const auto* b = static_cast<const VulkanBuffer*>(t->deviceHandle());
  VulkanBinding out;
  out.buffer = b->buffer;
  out.offset = 0;
  out.range = b->size;
  return out;
}

Status VulkanBackend::planBuffer(VkDeviceSize bytes, VulkanBuffer** out) {
  std::unique_ptr<VulkanBuffer> b;
  TESSERA_RETURN_IF_ERROR(createBuffer(bytes, true, &b));
  *out = b.get();
  staticBuffers_.push_back(std::move(b));
  return Status::ok();
}

Status VulkanBackend::planDeviceBuffer(VkDeviceSize bytes, VulkanBinding* out) {
  std::unique_ptr<VulkanBuffer> b;
  TESSERA_RETURN_IF_ERROR(createBuffer(bytes, false, &b));
  *out = {b->buffer, 0, b->size};
  staticBuffers_.push_back(std::move(b));
  return Status::ok();
}

Status VulkanBackend::planConstant(const void* data, size_t bytes, VulkanBinding* out) {
  VulkanBuffer* b = nullptr;
  TESSERA_RETURN_IF_ERROR(planBuffer(bytes, &b));
  std::memcpy(b->mapped, data, bytes);
  *out = {b->buffer, 0, b->size};
  return Status::ok();
}

Status VulkanBackend::planUpload(const void* data, size_t bytes, VulkanBinding* out) {
  TESSERA_RETURN_IF_ERROR(planDeviceBuffer(bytes, out));
  if (!data || bytes == 0) return Status::ok();
  std::unique_ptr<VulkanBuffer> staging;
  TESSERA_RETURN_IF_ERROR(createBuffer(bytes, true, &staging));
  std::memcpy(staging->mapped, data, bytes);
  const VkBuffer src = staging->buffer, dst = out->buffer;
  Status st = runOnce([&](VkCommandBuffer cb) {
    VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cb, src, dst, 1, &region);
  });
  destroyBuffer(*staging);
  return st;
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
  vkQueueWaitIdle(ctx_->queue());
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
  if (ctx_->info().timestamps) {
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
  VkPipeline pipe;
  TESSERA_RETURN_IF_ERROR(ctx_->pipeline(shader, static_cast<int>(buffers.size()), imageMaskOf(buffers), &pipe));
  return record(pipe, vkshaders::binary(shader).name, buffers, params, count, label, timer);
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
    [] { return VulkanContext::describeDevices(); }});
}  // namespace

}  // namespace tessera
