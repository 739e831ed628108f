#include "backends/vulkan/VulkanDiagnostics.hpp"

#include <atomic>
#include <mutex>

#include "backends/vulkan/VulkanContext.hpp"

namespace tessera {
namespace vulkan {

namespace {
std::mutex gProfileMutex;
std::vector<std::pair<std::string, double>> gProfile;
std::atomic<uint64_t> gSubgroupDispatches{0};
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

bool subgroupTreesSupported() {
  std::shared_ptr<VulkanContext> ctx;
  return VulkanContext::get("", &ctx).isOk() && ctx->info().subgroupTrees();
}

uint64_t subgroupDispatchCount() { return gSubgroupDispatches.load(); }
void countSubgroupDispatch() { ++gSubgroupDispatches; }

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
