// The window part of the conv / conv_transpose / pool kernels' parameters: a geometry of
// rank 1..3 padded to 3-D (D, H, W) and packed in the kernels' order.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Window.hpp"

namespace tessera {
namespace vkops {

// Appends in DHW, out DHW, kernel, stride, dilation, pad begin (and pad end if asked).
inline void pushWindow(std::vector<uint32_t>& p, const WindowGeometry& g, bool padEnd) {
  const WindowGeometry w = g.padTo3D();
  for (const std::vector<int64_t>* v : {&w.input, &w.output, &w.kernel, &w.stride, &w.dilation, &w.padBegin})
    for (int64_t x : *v) p.push_back(u32(x));
  if (padEnd)
    for (int64_t x : w.padEnd) p.push_back(u32(x));
}

}  // namespace vkops
}  // namespace tessera
