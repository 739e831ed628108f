// How many GPU invocations share one output tile of a long reduction: a GEMM-shaped
// convolution's (input channels x taps) or a matrix product's (K).
//
// The GPU conv and matmul kernels give each invocation a tile (4 output channels by a few
// columns; a 4x4 block) and loop over the whole reduction. A conv with few output channels
// at a low resolution, or a product of small matrices with a long K, then has a few hundred
// invocations for a GPU of ~270,000 threads, each looping hundreds of times: PP-OCRv4 det's
// 3x3 96 -> 24 neck convs at 20x20 ran at 68 GFLOP/s on an H200. Splitting the reduction
// over `lanes` invocations of one work-group (a tree in work-group memory merges their
// partial sums) multiplies the parallelism.
#pragma once
#include <cstdint>

#include "tessera/Backend.hpp"

namespace tessera {

// About the threads a large GPU holds at once (an H100/H200: 132 multiprocessors of 2048):
// kernels with fewer invocations leave it partly idle.
constexpr int64_t kGpuTargetInvocations = int64_t(1) << 17;

// Invocations per output tile: 1 (the plain kernel), or a power of two from 2 to 64 (the
// split kernel). `tiles` counts the tiles of the split kernel, `reduction` the steps each
// tile sums (a conv's input-channel blocks times taps, a product's K). `envName`
// (TESSERA_VULKAN_SPLIT, TESSERA_OPENCL_SPLIT) may say `off`, or force a lane count (2, 4
// ... 64) on every kernel that can split (tests use it); other values are ignored.
// Otherwise, on a GPU, the fewest lanes that give 2^17 invocations (at most 64, at most the
// reduction's length, at least 4 or none), and none on a device that is a CPU (lavapipe,
// PoCL: there an invocation is a SIMD lane, and the tree's barriers only cost).
int splitReductionLanes(int64_t tiles, int64_t reduction, DeviceKind device, const char* envName);

// Whether a reduction along `lines` lines of `length` elements (Reduce*, Softmax, LayerNorm,
// ArgMax ...) gives each line a work-group (the kernels' GROUP builds: a tree over the line)
// rather than an invocation: from 128 elements, and on a GPU also from 16 when the lines are
// too few (at most 2048) to fill it one invocation each (PP-OCRv4 rec's ReduceMean over 120
// values of 40 tokens took 30 us a step on an H200, one invocation walking each line).
// `envName` (TESSERA_VULKAN_GROUP_LINES, TESSERA_OPENCL_GROUP_LINES) = `always` gives every
// line a work-group, whatever its length (tests run the GROUP builds on short lines so).
bool groupPerLine(int64_t length, int64_t lines, DeviceKind device, const char* envName);
// Lines shorter than 128 that groupPerLine gave a work-group, in this process (tests check
// that the forced or GPU-only choice reached the ops).
uint64_t shortLineGroupCount();

// Parts a global pool splits each plane in (one work-group of `groupSize` a part, then a
// merge): 1 on a device that is a CPU and wherever the work-groups of the whole planes
// (`groups`, one per batch and channel block) reach 2^17 invocations or the plane is short;
// else enough parts of at least 1024 pixels to get there (PP-OCRv4 det's 24 channels at
// 160x160: 6 groups walking 25 600 pixels become 150 of 1024). `envName`
// (TESSERA_VULKAN_POOL_PARTS, TESSERA_OPENCL_POOL_PARTS) = N forces N parts (at most one per
// pixel) on every device.
int64_t globalPoolParts(int64_t groups, int64_t plane, int64_t groupSize, DeviceKind device, const char* envName);

// Kernels planned with split reductions in this process, by any backend (tests check that
// the path they mean to test ran).
uint64_t splitReductionPlanCount();
void countSplitReductionPlan();

}  // namespace tessera
