// A small conv net, the shape of the work the PaddleOCR-style models do (3x3 conv, depthwise
// 3x3, pointwise, residual add, global pool at 96x96 with 32 channels), timed on one backend:
// how "auto" orders the GPU backends and how a GPU backend picks its NC4HW4 storage.
#pragma once
#include "tessera/Backend.hpp"

namespace tessera {

// The median of `runs` runs after `warmups` warm-up runs, in ms, in a Session of its own on
// backend `t` (with `options`: precision, device, NC4HW4 storage); negative when that backend
// cannot create or run the net.
double timeConvNet(BackendType t, const BackendOptions& options, int warmups, int runs);

}  // namespace tessera
