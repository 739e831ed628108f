#include "core/src/SplitReduction.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace tessera {
namespace {

std::atomic<uint64_t> gSplitPlans{0};
std::atomic<uint64_t> gShortLineGroups{0};


}  // namespace

int splitReductionLanes(int64_t tiles, int64_t reduction, DeviceKind device, const char* envName) {
  if (const char* e = std::getenv(envName)) {
    if (std::strcmp(e, "off") == 0) return 1;
    const int forced = std::atoi(e);
    if (forced >= 2 && forced <= 64 && (forced & (forced - 1)) == 0) return forced;
  }
  if (device == DeviceKind::kCPU || tiles <= 0) return 1;
  int lanes = 1;
  while (lanes < 64 && tiles * lanes < kGpuTargetInvocations && lanes * 2 <= reduction) lanes *= 2;
  return lanes >= 4 ? lanes : 1;
}

int64_t globalPoolParts(int64_t groups, int64_t plane, int64_t groupSize, DeviceKind device, const char* envName) {
  constexpr int64_t kMinPartPixels = 1024;
  if (const char* forced = std::getenv(envName)) {
    const long long n = std::atoll(forced);
    if (n > 0) return std::max<int64_t>(1, std::min<int64_t>(n, plane));
  }
  if (device == DeviceKind::kCPU || groups <= 0) return 1;
  const int64_t wanted = kGpuTargetInvocations / (groups * groupSize);
  return std::max<int64_t>(1, std::min(wanted, plane / kMinPartPixels));
}

bool groupPerLine(int64_t length, int64_t lines, DeviceKind device, const char* envName) {
  if (length >= 128) return true;
  const char* e = std::getenv(envName);
  const bool group = (e && std::strcmp(e, "always") == 0) ? length >= 1
                                                          : device != DeviceKind::kCPU && length >= 16 && lines <= 2048;
  if (group) gShortLineGroups.fetch_add(1);
  return group;
}

uint64_t shortLineGroupCount() { return gShortLineGroups.load(); }

uint64_t splitReductionPlanCount() { return gSplitPlans.load(); }
void countSplitReductionPlan() { gSplitPlans.fetch_add(1); }

}  // namespace tessera
