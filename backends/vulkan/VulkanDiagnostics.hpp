// What a test or a tool can ask the Vulkan backend without Vulkan headers: validation-layer
// error counts (TESSERA_VULKAN_VALIDATION=1), the pipeline cache in use, and per-dispatch
// GPU times of the last run.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera {
namespace vulkan {

bool validationEnabled();
// Errors the Khronos validation layer reported in this process so far.
uint64_t validationErrorCount();
std::string lastValidationMessage();

// The pipeline cache file of the device a default session uses ("" when caching is off),
// and whether that file existed and was loaded when the device was opened.
std::string pipelineCachePath();
bool pipelineCacheWasLoaded();

// Whether the default device runs kernels' SUBGROUP builds (work-group trees that start in
// subgroups: it has subgroup arithmetic, and its subgroup size divides 64), whatever
// TESSERA_VULKAN_SUBGROUPS says; and how many dispatches of SUBGROUP builds Vulkan sessions in
// this process have recorded (TESSERA_VULKAN_SUBGROUPS=0, read when a session's backend is
// made, keeps them to the plain builds).
bool subgroupTreesSupported();
uint64_t subgroupDispatchCount();

// GPU time of each dispatch of the most recent run of any Vulkan session in this process
// (label "<node> [<kernel>]", milliseconds), measured with timestamp queries.
std::vector<std::pair<std::string, double>> lastGpuProfile();

}  // namespace vulkan
}  // namespace tessera
