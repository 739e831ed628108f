// The Vulkan backend's memory: storage buffers (plain layouts, staging, tables) and 2-D
// storage images (NC4HW4 tensors), planned with reuse of released ones (VulkanBackend.hpp).
#include <algorithm>
#include <cstring>

#include "backends/vulkan/VulkanBackend.hpp"

namespace tessera {

bool VulkanBackend::imagesFit(const Tensors& ts) const {
  if (!nc4Storage().images) return false;
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

bool VulkanBackend::onShareBuffer(Tensor* t, const Tensor* from) {
  // Buffers only: an NC4HW4 image's texels are not the tensor's row-major bytes.
  auto it = dynamicInUse_.find(from);
  if (it == dynamicInUse_.end() || t->layout() != Layout::kNCHW || storageBytes(t) > it->second->size) return false;
  t->setDevice(this, it->second);
  return true;
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

}  // namespace tessera
