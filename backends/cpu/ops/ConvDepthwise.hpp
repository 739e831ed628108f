// Depthwise 2-D convolution (group == input channels == output channels): a direct kernel
// over 4-channel blocks, chosen by the Conv execution's creator.
#pragma once
#include <memory>

#include "ops/Conv.hpp"
#include "tessera/Backend.hpp"

namespace tessera {

// True when `c` is a depthwise 2-D convolution this kernel runs.
bool isDepthwiseConv2D(const ConvShape& c);
std::unique_ptr<Execution> makeCpuDepthwiseConv(Backend* backend, const ConvParams& params);

}  // namespace tessera
