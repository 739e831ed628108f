// Vulkan RNN, GRU and LSTM against the CPU: the shared sweep (tests/support/
// RecurrentGpuCases.hpp: every direction, both layouts, unequal lengths, clip,
// linear_before_reset, peepholes, input_forget, activations with alpha/beta, outputs left
// out, hidden sizes past one work-group), fp16 storage within fp16 tolerances, and a
// constant out-of-range sequence_lens and a hidden size past the kernel's limit left to the
// CPU.
#include "support/RecurrentGpuCases.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanRecurrent, MatchesCpu) {
  TESSERA_REQUIRE_VULKAN();
  for (const RecurrentGpuCase& c : recurrentGpuSweep()) expectGpuMatchesCpu(c, BackendType::kVulkan);
}

TEST(VulkanRecurrent, LongSequencesMatchCpu) {
  TESSERA_REQUIRE_VULKAN();
  for (const RecurrentGpuCase& c : recurrentLongSweep()) expectGpuMatchesCpu(c, BackendType::kVulkan);
}

TEST(VulkanRecurrent, Fp16Storage) {
  TESSERA_REQUIRE_VULKAN();
  for (const std::string op : {"RNN", "GRU", "LSTM"}) {
    RecurrentGpuCase c;
    c.op = op, c.direction = "bidirectional", c.batch = 3, c.seq = 6, c.input = 7, c.hidden = 13, c.bias = true;
    c.initial = true, c.lens = {6, 2, 5};
    expectGpuMatchesCpu(c, BackendType::kVulkan, Precision::kFP16, 2e-2, 2e-2);
  }
}

TEST(VulkanRecurrent, ConstantLengthsOutOfRangeStayOnCpu) {
  TESSERA_REQUIRE_VULKAN();
  expectConstantLengthsOutOfRangeFail("GRU", BackendType::kVulkan);
}

TEST(VulkanRecurrent, HiddenPastLimitRunsOnCpu) {
  TESSERA_REQUIRE_VULKAN();
  expectHiddenPastLimitOnCpu(BackendType::kVulkan);
}

}  // namespace
}  // namespace test
}  // namespace tessera
