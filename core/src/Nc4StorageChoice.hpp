// How a GPU backend picks where NC4HW4 tensors live (tessera::Nc4Storage, Backend.hpp):
// forced by the Session's options, else by TESSERA_<BACKEND>_NC4_STORAGE, else measured: the
// small conv net (ConvNetTiming.hpp) timed with images and with buffers, the faster kept
// (images on a tie). A measurement is made once per device, driver and precision, then read
// from the cache directory (and remembered in the process), so later Sessions pay nothing.
#pragma once
#include <string>

#include "tessera/Backend.hpp"

namespace tessera {

struct Nc4StorageChoice {
  bool images = true;
  double imageMs = -1, bufferMs = -1;  // the conv net's median, when measured (or cached)
  std::string why;                     // "measured: images 1.2 ms, buffers 0.9 ms", "forced by ..."
};

// `device` names the device, driver and precision (the cache key); `envVar` is the backend's
// override (TESSERA_VULKAN_NC4_STORAGE). Call only where the device can hold images at all.
Nc4StorageChoice chooseNc4Storage(BackendType t, const BackendOptions& options, const std::string& device,
                                  const char* envVar);

// "images (measured: images 1.2 ms, buffers 0.9 ms)": a line for `tessera devices`.
std::string describeNc4Storage(const Nc4StorageChoice& c);

// For tests: where a device's measurement is cached (empty: caching off), the measurements
// made in this process, and forgetting the remembered choices (the next reads the cache).
std::string nc4StorageCachePath(const std::string& device);
std::string nc4StorageCacheKey(const std::string& device);
int nc4StorageMeasurements();
void forgetNc4StorageChoices();

}  // namespace tessera
