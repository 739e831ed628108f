#include "backends/vulkan/VulkanDiagnostics.hpp"

#include <mutex>

#include "backends/vulkan/VulkanContext.hpp"

namespace tessera {
namespace vulkan {

namespace {
std::mutex gProfileMutex;
std::vector<std::pair<std::string, double>> gProfile;
}  // namespace

bool validationEnabled() { return VulkanContext::validationEnabled(); }
uint64_t validationErrorCount() { return VulkanContext::validationErrorCount(); }
std::string lastValidationMessage() { return VulkanContext::lastValidationMessage(); }

std::string pipelineCachePath() {
  std::shared_ptr<VulkanContext> ctx;
  return VulkanContext::get("", &ctx).isOk() ? ctx->pipelineCachePath() : "";
}

bool pipelineCacheWasLoaded() {
  std::shared_ptr<VulkanContext> ctx;
  return VulkanContext::get("", &ctx).isOk() && ctx->pipelineCacheLoaded();
}

std::vector<std::pair<std::string, double>> lastGpuProfile() {
  std::lock_guard<std::mutex> lock(gProfileMutex);
  return gProfile;
}

void publishGpuProfile(std::vector<std::pair<std::string, double>> p) {
  std::lock_guard<std::mutex> lock(gProfileMutex);
  gProfile = std::move(p);
}

}  // namespace vulkan
}  // namespace tessera
