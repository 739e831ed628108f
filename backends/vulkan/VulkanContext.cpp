#include "backends/vulkan/VulkanContext.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/src/CacheFile.hpp"

namespace tessera {

std::string vkResultName(VkResult r) {
  switch (r) {
#define TESSERA_VK_CASE(x) case x: return "VkResult " + std::to_string(static_cast<int>(x)) + " (" #x ")";
    TESSERA_VK_CASE(VK_SUCCESS)
    TESSERA_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    TESSERA_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    TESSERA_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    TESSERA_VK_CASE(VK_ERROR_DEVICE_LOST)
    TESSERA_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    TESSERA_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    TESSERA_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    TESSERA_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    TESSERA_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
#undef TESSERA_VK_CASE
    default: return "VkResult " + std::to_string(static_cast<int>(r));
  }
}

namespace {

std::atomic<uint64_t> gValidationErrors{0};
std::mutex gMessageMutex;
std::string gLastMessage;

VKAPI_ATTR VkBool32 VKAPI_CALL onDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                              VkDebugUtilsMessageTypeFlagsEXT,
                                              const VkDebugUtilsMessengerCallbackDataEXT* data,
                                              void*) {
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    gValidationErrors.fetch_add(1);
    std::lock_guard<std::mutex> lock(gMessageMutex);
    gLastMessage = data && data->pMessage ? data->pMessage : "(no message)";
  }
  return VK_FALSE;
}

bool envFlag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

// The process-wide instance: created once, kept for the life of the process (drivers
// dislike instances coming and going, and the debug messenger must outlive devices).
struct Instance {
  Status status;
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  bool validation = false;
  uint32_t apiVersion = VK_API_VERSION_1_0;  // the instance's
  std::vector<VulkanDeviceInfo> devices;
};

bool hasLayer(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (auto& l : layers) if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

bool hasInstanceExtension(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> ext(n);
  vkEnumerateInstanceExtensionProperties(nullptr, &n, ext.data());
  for (auto& e : ext) if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

// `instanceApi`: the instance's version; 1.2 structures are used only when both have 1.2.
VulkanDeviceInfo queryDevice(VkPhysicalDevice pd, uint32_t instanceApi) {
  VulkanDeviceInfo d;
  d.physical = pd;
  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(pd, &p);
  d.name = p.deviceName;
  if (d.name.find("llvmpipe") != std::string::npos) d.invocationLoopLimit = 65535;
  d.type = p.deviceType;
  d.vendorId = p.vendorID;
  d.deviceId = p.deviceID;
  d.driverVersion = p.driverVersion;
  d.apiVersion = p.apiVersion;
  d.limits = p.limits;
  std::memcpy(d.cacheUuid, p.pipelineCacheUUID, VK_UUID_SIZE);
  d.timestampPeriodNs = p.limits.timestampPeriod;
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
  std::vector<VkQueueFamilyProperties> fams(n);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, fams.data());
  for (uint32_t i = 0; i < n; ++i)  // prefer a compute queue without graphics (async compute)
    if ((fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
        (d.computeQueueFamily == UINT32_MAX || !(fams[i].queueFlags & VK_QUEUE_GRAPHICS_BIT))) {
      d.computeQueueFamily = i;
      d.timestamps = fams[i].timestampValidBits > 0 && p.limits.timestampComputeAndGraphics;
    }
  const bool version12 = p.apiVersion >= VK_API_VERSION_1_2 && instanceApi >= VK_API_VERSION_1_2;
  d.version12 = version12;
  if (p.apiVersion >= VK_API_VERSION_1_1) {
    VkPhysicalDeviceShaderFloat16Int8Features f16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
    if (version12) {  // core 1.2 structures
      s16.pNext = &f16;
      f16.pNext = &s8;
    }
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &s16;
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    d.fp16Storage = s16.storageBuffer16BitAccess;
    d.fp16Arithmetic = version12 && f16.shaderFloat16;
    d.int8Storage = version12 && s8.storageBuffer8BitAccess;
    d.int8Arithmetic = version12 && f16.shaderInt8;
    d.int64 = f2.features.shaderInt64;
    d.fp64 = f2.features.shaderFloat64;
    VkPhysicalDeviceSubgroupProperties sg{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &sg;
    vkGetPhysicalDeviceProperties2(pd, &p2);
    d.subgroupSize = sg.subgroupSize;
    d.subgroupArithmetic = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                           (sg.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  }
  uint32_t extCount = 0;
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &extCount, nullptr);
  std::vector<VkExtensionProperties> exts(extCount);
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &extCount, exts.data());
  for (const auto& e : exts)
    if (std::strcmp(e.extensionName, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0 &&
        p.apiVersion >= VK_API_VERSION_1_1) {
      VkPhysicalDeviceCooperativeMatrixFeaturesNV coop{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
      VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
      f2.pNext = &coop;
      vkGetPhysicalDeviceFeatures2(pd, &f2);
      d.cooperativeMatrix = coop.cooperativeMatrix;
    }
  return d;
}

Instance& instance() {
  static Instance inst = [] {
    Instance in;
    VkResult r = volkInitialize();
    if (r != VK_SUCCESS) {
      in.status = Status::unavailable("no Vulkan driver found (libvulkan.so.1 not loadable)");
      return in;
    }
    std::vector<const char*> layers, exts;
    in.validation = envFlag("TESSERA_VULKAN_VALIDATION");
    if (in.validation) {
      if (!hasLayer("VK_LAYER_KHRONOS_validation") || !hasInstanceExtension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
        in.status = Status::unavailable(
            "TESSERA_VULKAN_VALIDATION=1 but VK_LAYER_KHRONOS_validation or VK_EXT_debug_utils is "
            "missing (install vulkan-validationlayers)");
        return in;
      }
      layers.push_back("VK_LAYER_KHRONOS_validation");
      exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
    uint32_t api = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&api);
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "tessera";
    app.pEngineName = "tessera";
    // 1.2 where the loader has it: 8-bit storage and fp16/int8 arithmetic are core there.
    app.apiVersion = api >= VK_API_VERSION_1_2 ? VK_API_VERSION_1_2 : api >= VK_API_VERSION_1_1 ? VK_API_VERSION_1_1
                                                                                            : VK_API_VERSION_1_0;
    in.apiVersion = app.apiVersion;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
    ci.ppEnabledLayerNames = layers.data();
    ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
    ci.ppEnabledExtensionNames = exts.data();
    r = vkCreateInstance(&ci, nullptr, &in.instance);
    if (r != VK_SUCCESS) {
      in.status = Status::unavailable(
          r == VK_ERROR_INCOMPATIBLE_DRIVER
              ? "no Vulkan driver (ICD) found by the loader: vkCreateInstance returned " + vkResultName(r) +
                    " (install a driver, e.g. mesa-vulkan-drivers, or check VK_ICD_FILENAMES)"
              : "vkCreateInstance failed: " + vkResultName(r));
      return in;
    }
    volkLoadInstance(in.instance);
    if (in.validation) {
      VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
      mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
      mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
      mi.pfnUserCallback = onDebugMessage;
      vkCreateDebugUtilsMessengerEXT(in.instance, &mi, nullptr, &in.messenger);
    }
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(in.instance, &n, nullptr);
    std::vector<VkPhysicalDevice> pds(n);
    vkEnumeratePhysicalDevices(in.instance, &n, pds.data());
    for (VkPhysicalDevice pd : pds) in.devices.push_back(queryDevice(pd, in.apiVersion));
    if (in.devices.empty()) in.status = Status::unavailable("the Vulkan driver reports no physical device");
    return in;
  }();
  return inst;
}

int typeRank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

const char* typeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Status chooseDevice(const Instance& in, const std::string& requested, size_t* index) {
  std::string sel = requested;
  if (sel.empty()) if (const char* e = std::getenv("TESSERA_VULKAN_DEVICE")) sel = e;
  std::vector<size_t> usable;
  for (size_t i = 0; i < in.devices.size(); ++i)
    if (in.devices[i].computeQueueFamily != UINT32_MAX) usable.push_back(i);
  if (usable.empty()) return Status::unavailable("no Vulkan device has a compute queue");
  if (!sel.empty()) {
    const bool numeric = std::all_of(sel.begin(), sel.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (numeric) {
      const size_t i = std::stoul(sel);
      if (i >= in.devices.size() || in.devices[i].computeQueueFamily == UINT32_MAX)
        return Status::notFound("Vulkan device index " + sel + " does not exist (" +
                                std::to_string(in.devices.size()) + " device(s); see `tessera devices`)");
      *index = i;
      return Status::ok();
    }
    for (size_t i : usable)
      if (lower(in.devices[i].name).find(lower(sel)) != std::string::npos) { *index = i; return Status::ok(); }
    return Status::notFound("no Vulkan device name contains '" + sel + "' (see `tessera devices`)");
  }
  *index = *std::min_element(usable.begin(), usable.end(), [&](size_t a, size_t b) {
    return typeRank(in.devices[a].type) < typeRank(in.devices[b].type);
  });
  return Status::ok();
}

// $TESSERA_CACHE_DIR/vulkan, else $XDG_CACHE_HOME/tessera/vulkan, else ~/.cache/tessera/vulkan;
// TESSERA_CACHE_DIR set but empty turns caching off.
std::string cacheDir() { return cachefile::directory("vulkan"); }

// A device, once opened, stays open for the life of the process, shared by every Session on
// it: opening one (device, queues, pipeline cache, pipelines) costs tens of milliseconds on
// real GPUs, and tests and programs that make many short-lived Sessions paid it each time (a
// GPU unit test making hundreds took up to a minute on an H200, under a second on lavapipe).
// The map is never destroyed, so no device is torn down during static destruction at exit
// (the instance never is either); pipeline caches are saved after each plan.
std::mutex gContextsMutex;
std::map<size_t, std::shared_ptr<VulkanContext>>& openContexts() {
  static auto* contexts = new std::map<size_t, std::shared_ptr<VulkanContext>>();
  return *contexts;
}

}  // namespace

uint64_t VulkanContext::validationErrorCount() { return gValidationErrors.load(); }
std::string VulkanContext::lastValidationMessage() {
  std::lock_guard<std::mutex> lock(gMessageMutex);
  return gLastMessage;
}
bool VulkanContext::validationEnabled() { return instance().validation; }

Status VulkanContext::get(const std::string& selector, std::shared_ptr<VulkanContext>* out) {
  Instance& in = instance();
  if (!in.status.isOk()) return in.status;
  size_t index = 0;
  TESSERA_RETURN_IF_ERROR(chooseDevice(in, selector, &index));
  std::lock_guard<std::mutex> lock(gContextsMutex);
  std::shared_ptr<VulkanContext>& open = openContexts()[index];
  if (!open) {
    std::shared_ptr<VulkanContext> ctx(new VulkanContext);
    TESSERA_RETURN_IF_ERROR(ctx->init(in.devices[index]));
    open = ctx;
  }
  *out = open;
  return Status::ok();
}

std::string VulkanDeviceInfo::capabilities() const {
  std::string s;
  auto add = [&](bool on, const std::string& what) {
    if (on) s += (s.empty() ? "" : ", ") + what;
  };
  add(fp16Storage, "fp16 storage");
  add(fp16Arithmetic, "fp16 arithmetic");
  add(int8Storage, "int8 storage");
  add(int8Arithmetic, "int8 arithmetic");
  add(int64, "int64");
  add(fp64, "fp64");
  add(subgroupArithmetic, "subgroup arithmetic (" + std::to_string(subgroupSize) + " lanes)");
  add(cooperativeMatrix, "cooperative matrix");
  return s.empty() ? "none" : s;
}

std::string VulkanContext::describeDevices() {
  Instance& in = instance();
  if (in.devices.empty()) return "unavailable: " + in.status.message();
  size_t chosen = SIZE_MAX;
  Status st = chooseDevice(in, "", &chosen);
  std::ostringstream os;
  for (size_t i = 0; i < in.devices.size(); ++i) {
    const VulkanDeviceInfo& d = in.devices[i];
    os << (i ? "\n" : "") << "  [" << i << "] " << d.name << " (" << typeName(d.type) << ", Vulkan "
       << VK_API_VERSION_MAJOR(d.apiVersion) << "." << VK_API_VERSION_MINOR(d.apiVersion) << "."
       << VK_API_VERSION_PATCH(d.apiVersion) << "; capabilities: " << d.capabilities()
       << (d.computeQueueFamily == UINT32_MAX ? ", no compute queue" : "") << ")"
       << (i == chosen ? "  <- default" : "");
  }
  if (!st.isOk()) os << "\n  unavailable: " << st.message();
  os << "\n  select with TESSERA_VULKAN_DEVICE=<index or name>; pipeline cache: "
     << (cacheDir().empty() ? std::string("off") : cacheDir());
  if (in.validation) os << "\n  validation layer: on (" << gValidationErrors.load() << " errors so far)";
  return os.str();
}

Status VulkanContext::init(const VulkanDeviceInfo& info) {
  info_ = info;
  float priority = 1.f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = info.computeQueueFamily;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  // Every optional capability the device has is enabled (VulkanDeviceInfo lists them), so a
  // shader that needs int64, fp64, 8/16-bit storage or fp16/int8 arithmetic just checks it.
  VkPhysicalDeviceShaderFloat16Int8Features f16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  f16.shaderFloat16 = info.fp16Arithmetic ? VK_TRUE : VK_FALSE;
  f16.shaderInt8 = info.int8Arithmetic ? VK_TRUE : VK_FALSE;
  VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  s16.storageBuffer16BitAccess = info.fp16Storage ? VK_TRUE : VK_FALSE;
  VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  s8.storageBuffer8BitAccess = info.int8Storage ? VK_TRUE : VK_FALSE;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coop{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  coop.cooperativeMatrix = VK_TRUE;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.features.shaderInt64 = info.int64 ? VK_TRUE : VK_FALSE;
  f2.features.shaderFloat64 = info.fp64 ? VK_TRUE : VK_FALSE;
  std::vector<const char*> deviceExts;
  void** tail = &f2.pNext;  // the chain of feature structures to enable
  auto chain = [&](auto& s) {
    *tail = &s;
    tail = &s.pNext;
  };
  if (info.apiVersion >= VK_API_VERSION_1_1) chain(s16);
  if (info.version12) {
    chain(s8);
    chain(f16);
  }
  if (info.cooperativeMatrix) {
    chain(coop);
    deviceExts.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  }
  VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  ci.pNext = &f2;
  ci.enabledExtensionCount = static_cast<uint32_t>(deviceExts.size());
  ci.ppEnabledExtensionNames = deviceExts.empty() ? nullptr : deviceExts.data();
  ci.queueCreateInfoCount = 1;
  ci.pQueueCreateInfos = &qi;
  VkResult r = vkCreateDevice(info.physical, &ci, nullptr, &device_);
  if (r != VK_SUCCESS) return Status::unavailable("vkCreateDevice on '" + info.name + "' failed: " + vkResultName(r));
  vkGetDeviceQueue(device_, info.computeQueueFamily, 0, &queue_);
  vkGetPhysicalDeviceMemoryProperties(info.physical, &memProps_);

  // The pipeline cache file is keyed by vendor, device, driver version, the driver's cache
  // UUID and the hash of every shader in this build: any mismatch is a different file.
  std::vector<char> blob;
  const std::string dir = cacheDir();
  if (!dir.empty()) {
    char name[256];
    std::string uuid;
    for (uint8_t b : info.cacheUuid) { char h[3]; std::snprintf(h, sizeof h, "%02x", b); uuid += h; }
    std::snprintf(name, sizeof name, "/pipelines-%04x-%04x-%08x-%s-%016llx.pipelinecache", info.vendorId,
                  info.deviceId, info.driverVersion, uuid.c_str(),
                  static_cast<unsigned long long>(vkshaders::allShadersHash()));
    cachePath_ = dir + name;
    // Our header (key, size, checksum) guards the file; the driver's own header must also
    // name this device, or the data goes nowhere near vkCreatePipelineCache.
    std::string data;
    if (cachefile::read(cachePath_, name, &data) == cachefile::ReadResult::kHit) {
      VkPipelineCacheHeaderVersionOne h{};
      if (data.size() >= sizeof h) std::memcpy(&h, data.data(), sizeof h);
      if (data.size() < sizeof h || h.headerVersion != VK_PIPELINE_CACHE_HEADER_VERSION_ONE ||
          h.vendorID != info.vendorId || h.deviceID != info.deviceId ||
          std::memcmp(h.pipelineCacheUUID, info.cacheUuid, VK_UUID_SIZE) != 0)
        cachefile::discard(cachePath_, "its pipeline-cache header names another device or driver");
      else
        blob.assign(data.begin(), data.end());
    }
  }
  VkPipelineCacheCreateInfo pc{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  pc.initialDataSize = blob.size();
  pc.pInitialData = blob.empty() ? nullptr : blob.data();
  r = vkCreatePipelineCache(device_, &pc, nullptr, &cache_);
  if (r != VK_SUCCESS && !blob.empty()) {  // the driver rejected it: start empty
    cachefile::discard(cachePath_, "the driver rejected the pipeline cache");
    pc.initialDataSize = 0;
    pc.pInitialData = nullptr;
    blob.clear();
    r = vkCreatePipelineCache(device_, &pc, nullptr, &cache_);
  }
  if (r != VK_SUCCESS) cache_ = VK_NULL_HANDLE;
  cacheLoaded_ = !blob.empty();
  cacheLoadedBytes_ = blob.size();
  return Status::ok();
}

void VulkanContext::savePipelineCache() {
  // Sessions sharing this context may save at once: one at a time, each to a unique
  // temporary file (cachefile::write), renamed into place.
  std::lock_guard<std::mutex> lock(cacheSaveMutex_);
  if (cache_ == VK_NULL_HANDLE || cachePath_.empty()) return;
  size_t size = 0;
  if (vkGetPipelineCacheData(device_, cache_, &size, nullptr) != VK_SUCCESS || size == 0) return;
  if (size == cacheLoadedBytes_) return;  // nothing new was compiled
  std::string data(size, '\0');
  if (vkGetPipelineCacheData(device_, cache_, &size, &data[0]) != VK_SUCCESS) return;
  data.resize(size);
  const std::string name = cachePath_.substr(cachePath_.rfind('/'));
  if (cachefile::write(cachePath_, name, data)) cacheLoadedBytes_ = size;
}

VulkanContext::~VulkanContext() {
  if (device_ == VK_NULL_HANDLE) return;
  vkDeviceWaitIdle(device_);
  savePipelineCache();
  for (auto& kv : pipelines_) vkDestroyPipeline(device_, kv.second, nullptr);
  for (auto& kv : modules_) vkDestroyShaderModule(device_, kv.second, nullptr);
  for (auto& kv : customPipelines_) {
    vkDestroyPipeline(device_, kv.second.second, nullptr);
    vkDestroyShaderModule(device_, kv.second.first, nullptr);
  }
  for (auto& kv : pipelineLayouts_) vkDestroyPipelineLayout(device_, kv.second, nullptr);
  for (auto& kv : setLayouts_) vkDestroyDescriptorSetLayout(device_, kv.second, nullptr);
  if (cache_) vkDestroyPipelineCache(device_, cache_, nullptr);
  vkDestroyDevice(device_, nullptr);
}

uint32_t VulkanContext::memoryType(uint32_t typeBits, VkMemoryPropertyFlags required,
                                   VkMemoryPropertyFlags preferred) const {
  uint32_t fallback = UINT32_MAX;
  for (uint32_t i = 0; i < memProps_.memoryTypeCount; ++i) {
    if (!(typeBits & (1u << i))) continue;
    const VkMemoryPropertyFlags f = memProps_.memoryTypes[i].propertyFlags;
    if ((f & required) != required) continue;
    if ((f & preferred) == preferred) return i;
    if (fallback == UINT32_MAX) fallback = i;
  }
  return fallback;
}

VkDescriptorSetLayout VulkanContext::setLayout(int bindings, uint32_t imageMask) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Signature sig{bindings, imageMask};
  auto it = setLayouts_.find(sig);
  if (it != setLayouts_.end()) return it->second;
  std::vector<VkDescriptorSetLayoutBinding> b(bindings);
  for (int i = 0; i < bindings; ++i) {
    b[i] = {};
    b[i].binding = static_cast<uint32_t>(i);
    b[i].descriptorType = (imageMask >> i) & 1u ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[i].descriptorCount = 1;
    b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  ci.bindingCount = static_cast<uint32_t>(bindings);
  ci.pBindings = b.data();
  VkDescriptorSetLayout l = VK_NULL_HANDLE;
  vkCreateDescriptorSetLayout(device_, &ci, nullptr, &l);
  setLayouts_[sig] = l;
  return l;
}

VkPipelineLayout VulkanContext::pipelineLayout(int bindings, uint32_t imageMask) {
  VkDescriptorSetLayout set = setLayout(bindings, imageMask);
  std::lock_guard<std::mutex> lock(mutex_);
  const Signature sig{bindings, imageMask};
  auto it = pipelineLayouts_.find(sig);
  if (it != pipelineLayouts_.end()) return it->second;
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
  VkPipelineLayoutCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  ci.setLayoutCount = 1;
  ci.pSetLayouts = &set;
  ci.pushConstantRangeCount = 1;
  ci.pPushConstantRanges = &push;
  VkPipelineLayout l = VK_NULL_HANDLE;
  vkCreatePipelineLayout(device_, &ci, nullptr, &l);
  pipelineLayouts_[sig] = l;
  return l;
}

bool VulkanContext::storageImageFormat(VkFormat format) const {
  VkFormatProperties props{};
  vkGetPhysicalDeviceFormatProperties(info_.physical, format, &props);
  return (props.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT) != 0;
}

Status VulkanContext::pipeline(vkshaders::ShaderId id, int bindings, uint32_t imageMask, VkPipeline* out) {
  VkPipelineLayout layout = pipelineLayout(bindings, imageMask);
  std::lock_guard<std::mutex> lock(mutex_);
  const auto key = std::make_pair(id, Signature{bindings, imageMask});
  auto it = pipelines_.find(key);
  if (it != pipelines_.end()) { *out = it->second; return Status::ok(); }
  const vkshaders::ShaderBinary& bin = *id;
  VkShaderModule& module = modules_[id];
  if (module == VK_NULL_HANDLE) {
    VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = bin.wordCount * 4;
    mi.pCode = bin.words;
    VkResult r = vkCreateShaderModule(device_, &mi, nullptr, &module);
    if (r != VK_SUCCESS) return Status::internal(std::string("Vulkan: shader module '") + bin.name + "': " + vkResultName(r));
  }
  VkPipeline p = VK_NULL_HANDLE;
  TESSERA_RETURN_IF_ERROR(createPipeline(module, layout, bin.name, &p));
  pipelines_[key] = p;
  *out = p;
  return Status::ok();
}

Status VulkanContext::createPipeline(VkShaderModule module, VkPipelineLayout layout, const std::string& name,
                                     VkPipeline* out) {
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.layout = layout;
  VkResult r = vkCreateComputePipelines(device_, cache_, 1, &ci, nullptr, out);
  if (r != VK_SUCCESS) return Status::internal("Vulkan: pipeline '" + name + "': " + vkResultName(r));
  return Status::ok();
}

Status VulkanContext::pipeline(const std::vector<uint32_t>& spirv, const std::string& name, int bindings,
                               uint32_t imageMask, VkPipeline* out) {
  VkPipelineLayout layout = pipelineLayout(bindings, imageMask);
  std::lock_guard<std::mutex> lock(mutex_);
  const auto key = std::make_pair(spirv, Signature{bindings, imageMask});
  auto it = customPipelines_.find(key);
  if (it != customPipelines_.end()) { *out = it->second.second; return Status::ok(); }
  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = spirv.size() * 4;
  mi.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  VkResult r = vkCreateShaderModule(device_, &mi, nullptr, &module);
  if (r != VK_SUCCESS) return Status::internal("Vulkan: shader module '" + name + "': " + vkResultName(r));
  VkPipeline p = VK_NULL_HANDLE;
  Status st = createPipeline(module, layout, name, &p);
  if (!st.isOk()) {
    vkDestroyShaderModule(device_, module, nullptr);
    return st;
  }
  customPipelines_[key] = {module, p};
  *out = p;
  return Status::ok();
}

}  // namespace tessera
