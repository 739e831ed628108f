// The rule that picks how many GPU invocations share a conv tile (core/src/SplitReduction.hpp).
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

}  // namespace
}  // namespace test
}  // namespace tessera
