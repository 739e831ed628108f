// The process's view of one Vulkan device: volk-loaded instance (optionally with the Khronos
// validation layer), the chosen physical device, a logical device with one compute queue,
// and the pipelines built from the generated SPIR-V map, cached through a VkPipelineCache
// persisted on disk.
#pragma once
#include <volk.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/Status.hpp"
#include "backends/vulkan/ShaderBinary.hpp"

namespace tessera {

struct VulkanDeviceInfo {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t vendorId = 0, deviceId = 0, driverVersion = 0, apiVersion = 0;
  uint8_t cacheUuid[VK_UUID_SIZE] = {};
  uint32_t computeQueueFamily = UINT32_MAX;
  bool timestamps = false;
  float timestampPeriodNs = 1.f;
  // Optional capabilities, each enabled on the logical device when the device has it (an op
  // whose shader needs one checks it when its execution is created and, where it is
  // missing, returns nullptr so the node falls back visibly to another backend).
  bool fp16Storage = false;     // storageBuffer16BitAccess
  bool fp16Arithmetic = false;  // shaderFloat16
  bool int8Storage = false;     // storageBuffer8BitAccess
  bool int8Arithmetic = false;  // shaderInt8
  bool int64 = false;           // shaderInt64
  bool fp64 = false;            // shaderFloat64
  bool subgroupArithmetic = false;  // subgroup add/min/max... in compute shaders
  uint32_t subgroupSize = 0;
  // Whether kernels' SUBGROUP builds (workgroup.glsl's trees starting in subgroups) can run:
  // subgroup arithmetic, and whole subgroups fill a work-group of 64.
  bool subgroupTrees() const { return subgroupArithmetic && subgroupSize > 0 && 64 % subgroupSize == 0; }
  // Loop iterations one invocation may run in all before the driver ends its loops early
  // (0: no such limit known). llvmpipe (lavapipe) counts them against 65535 and then leaves
  // every loop silently; kernels with long serial loops split their work below it.
  uint32_t invocationLoopLimit = 0;
  bool cooperativeMatrix = false;   // VK_NV_cooperative_matrix (tensor cores)
  bool version12 = false;           // device and instance both at Vulkan 1.2 or later
  VkPhysicalDeviceLimits limits{};
  // "fp16 storage, int64, subgroup arithmetic (32 lanes), ..." for `tessera devices`.
  std::string capabilities() const;
};

class VulkanContext {
 public:
  // The device picked by `selector` (an index, or a substring of the name; empty: the
  // TESSERA_VULKAN_DEVICE variable, then discrete > integrated > virtual > CPU), or why not.
  static Status get(const std::string& selector, std::shared_ptr<VulkanContext>* out);
  // `tessera devices`: one line per device, or why there is none.
  static std::string describeDevices();
  // Errors the validation layer reported in this process (TESSERA_VULKAN_VALIDATION=1).
  static uint64_t validationErrorCount();
  static std::string lastValidationMessage();
  static bool validationEnabled();

  ~VulkanContext();

  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  const VulkanDeviceInfo& info() const { return info_; }
  std::mutex& queueMutex() { return queueMutex_; }

  // Memory type index with `required` flags (and `preferred` if possible), or UINT32_MAX.
  uint32_t memoryType(uint32_t typeBits, VkMemoryPropertyFlags required,
                      VkMemoryPropertyFlags preferred) const;

  // Every kernel's interface: set 0 = `bindings` descriptors, binding i = tensor i (a
  // storage image where bit i of `imageMask` is set, else a storage buffer), and 128 bytes
  // of push constants (the kernel's 32-bit parameters, common.glsl).
  static constexpr uint32_t kPushConstantBytes = 128;
  VkDescriptorSetLayout setLayout(int bindings, uint32_t imageMask);
  VkPipelineLayout pipelineLayout(int bindings, uint32_t imageMask);
  // Created on first use and cached (in memory, and on disk through the pipeline cache).
  Status pipeline(vkshaders::ShaderId id, int bindings, uint32_t imageMask, VkPipeline* out);
  // A pipeline from SPIR-V compiled at run time (custom kernels), cached by its words and
  // interface; `name` is for messages.
  Status pipeline(const std::vector<uint32_t>& spirv, const std::string& name, int bindings, uint32_t imageMask,
                  VkPipeline* out);
  // The 2-D storage image format of NC4HW4 f32 tensors (rgba16f with fp16 storage).
  static VkFormat imageFormat(bool fp16) {
    return fp16 ? VK_FORMAT_R16G16B16A16_SFLOAT : VK_FORMAT_R32G32B32A32_SFLOAT;
  }
  // Whether `format` can be a storage image here (loads and stores, format declared).
  bool storageImageFormat(VkFormat format) const;

  const std::string& pipelineCachePath() const { return cachePath_; }
  bool pipelineCacheLoaded() const { return cacheLoaded_; }
  void savePipelineCache();

 private:
  VulkanContext() = default;
  Status init(const VulkanDeviceInfo& info);

  VulkanDeviceInfo info_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::string cachePath_;
  bool cacheLoaded_ = false;
  size_t cacheLoadedBytes_ = 0;
  std::mutex cacheSaveMutex_;  // savePipelineCache: sessions sharing the context save at once
  VkPhysicalDeviceMemoryProperties memProps_{};
  std::mutex mutex_;       // the caches below
  std::mutex queueMutex_;  // vkQueueSubmit
  using Signature = std::pair<int, uint32_t>;  // (bindings, imageMask)
  std::map<Signature, VkDescriptorSetLayout> setLayouts_;
  std::map<Signature, VkPipelineLayout> pipelineLayouts_;
  std::map<std::pair<vkshaders::ShaderId, Signature>, VkPipeline> pipelines_;
  std::map<vkshaders::ShaderId, VkShaderModule> modules_;
  std::map<std::pair<std::vector<uint32_t>, Signature>, std::pair<VkShaderModule, VkPipeline>> customPipelines_;
  Status createPipeline(VkShaderModule module, VkPipelineLayout layout, const std::string& name, VkPipeline* out);
};

// "VkResult -4 (VK_ERROR_DEVICE_LOST)"-style text for messages.
std::string vkResultName(VkResult r);

}  // namespace tessera
