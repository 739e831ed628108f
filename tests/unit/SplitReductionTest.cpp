// The rules that spread a reduction over a GPU (core/src/SplitReduction.hpp): how many
// invocations share a conv or matmul tile, and which lines a work-group reduces.
#include <gtest/gtest.h>

#include "core/src/SplitReduction.hpp"
#include "support/Nc4StorageChecks.hpp"

namespace tessera {
namespace test {
namespace {

constexpr const char* kVar = "TESSERA_TEST_SPLIT";

TEST(SplitReduction, FewTilesOnAGpuSplitUntilTheGpuIsFull) {
  ScopedEnvVar unset(kVar, nullptr);
  // PP-OCRv4 det 640's 3x3 96 -> 24 neck convs: 6 channel blocks x rows x 4-column blocks,
  // 24 input blocks x 9 taps each.
  EXPECT_EQ(splitReductionLanes(6 * 20 * 5, 216, DeviceKind::kDiscreteGPU, kVar), 64);     // 20x20
  EXPECT_EQ(splitReductionLanes(6 * 160 * 40, 216, DeviceKind::kDiscreteGPU, kVar), 4);    // 160x160
  EXPECT_EQ(splitReductionLanes(6 * 320 * 80, 216, DeviceKind::kIntegratedGPU, kVar), 1);  // enough tiles
  EXPECT_EQ(splitReductionLanes(24, 96, DeviceKind::kDiscreteGPU, kVar), 64);  // squeeze-and-excite 384 -> 96
  EXPECT_EQ(splitReductionLanes(24, 20, DeviceKind::kDiscreteGPU, kVar), 16);  // no more lanes than pairs
  EXPECT_EQ(splitReductionLanes(24, 3, DeviceKind::kDiscreteGPU, kVar), 1);    // under 4 lanes: not worth a tree
}

TEST(SplitReduction, CpuDevicesNeverSplitUnlessForced) {
  ScopedEnvVar unset(kVar, nullptr);
  EXPECT_EQ(splitReductionLanes(24, 216, DeviceKind::kCPU, kVar), 1);
  ScopedEnvVar forced(kVar, "8");
  EXPECT_EQ(splitReductionLanes(24, 216, DeviceKind::kCPU, kVar), 8);
  EXPECT_EQ(splitReductionLanes(1 << 20, 1, DeviceKind::kDiscreteGPU, kVar), 8);
}

TEST(SplitReduction, TheVariableSaysOffOrAPowerOfTwoUpTo64) {
  {
    ScopedEnvVar off(kVar, "off");
    EXPECT_EQ(splitReductionLanes(24, 216, DeviceKind::kDiscreteGPU, kVar), 1);
  }
  for (const char* unusable : {"3", "128", "1", "lots"}) {  // ignored: the automatic rule
    ScopedEnvVar v(kVar, unusable);
    EXPECT_EQ(splitReductionLanes(24, 216, DeviceKind::kDiscreteGPU, kVar), 64) << unusable;
    EXPECT_EQ(splitReductionLanes(24, 216, DeviceKind::kCPU, kVar), 1) << unusable;
  }
}

TEST(SplitReduction, LineGroupsForLongLinesAndForFewShortOnesOnAGpu) {
  ScopedEnvVar unset(kVar, nullptr);
  EXPECT_TRUE(groupPerLine(128, 1 << 20, DeviceKind::kCPU, kVar));          // long: everywhere
  EXPECT_FALSE(groupPerLine(120, 40, DeviceKind::kCPU, kVar));              // lavapipe, PoCL: a lane each
  EXPECT_TRUE(groupPerLine(120, 40, DeviceKind::kDiscreteGPU, kVar));       // rec's ReduceMean on a GPU
  EXPECT_FALSE(groupPerLine(120, 4096, DeviceKind::kDiscreteGPU, kVar));    // enough lines to fill it
  EXPECT_FALSE(groupPerLine(15, 40, DeviceKind::kIntegratedGPU, kVar));     // too short to share
  ScopedEnvVar always(kVar, "always");
  EXPECT_TRUE(groupPerLine(1, 1 << 20, DeviceKind::kCPU, kVar));
}

// Global pools: parts of at least 1024 pixels on a GPU until 2^17 invocations, none on a CPU
// driver or a short plane; the variable forces a count (at most one part a pixel).
TEST(SplitReduction, GlobalPoolPartsOnAGpuForFewLongPlanes) {
  ScopedEnvVar unset(kVar, nullptr);
  EXPECT_EQ(globalPoolParts(6, 160 * 160, 64, DeviceKind::kDiscreteGPU, kVar), 25);  // det 640's 24 channels
  EXPECT_EQ(globalPoolParts(24, 160 * 160, 64, DeviceKind::kDiscreteGPU, kVar), 25);
  EXPECT_EQ(globalPoolParts(6, 160 * 160, 64, DeviceKind::kCPU, kVar), 1);
  EXPECT_EQ(globalPoolParts(6, 20 * 20, 64, DeviceKind::kDiscreteGPU, kVar), 1);      // short plane
  EXPECT_EQ(globalPoolParts(1024, 160 * 160, 64, DeviceKind::kDiscreteGPU, kVar), 2);   // many groups already
  EXPECT_EQ(globalPoolParts(4096, 160 * 160, 64, DeviceKind::kDiscreteGPU, kVar), 1);
  ScopedEnvVar forced(kVar, "7");
  EXPECT_EQ(globalPoolParts(6, 400, 64, DeviceKind::kCPU, kVar), 7);
  EXPECT_EQ(globalPoolParts(6, 3, 64, DeviceKind::kCPU, kVar), 3);
}

}  // namespace
}  // namespace test
}  // namespace tessera
