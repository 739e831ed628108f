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
  RecurrentGpuCase c;
  c.op = "GRU", c.batch = 2, c.seq = 3, c.lens = {2, 4};
  std::vector<bool> constant;
  std::vector<Tensor> in = recurrentInputs(c, &constant);
  constant[4] = true;
  OpRun r = runOp("GRU", in, recurrentAttributes(c), 2, BackendType::kVulkan, constant, 14);
  EXPECT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("sequence_lens"), std::string::npos) << r.status.message();
}

// Past the kernel's 1024 hidden units (its shared arrays) the node runs on the CPU, correctly.
TEST(VulkanRecurrent, HiddenPastLimitRunsOnCpu) {
  TESSERA_REQUIRE_VULKAN();
  RecurrentGpuCase c;
  c.op = "RNN", c.input = 1, c.hidden = 1025;
  OpRun cpu = runRecurrentCase(c, BackendType::kCPU);
  OpRun dev = runRecurrentCase(c, BackendType::kVulkan);
  ASSERT_TRUE(dev.status.isOk()) << dev.status.message();
  ASSERT_EQ(dev.report.nodes.size(), 1u);
  EXPECT_EQ(dev.report.nodes[0].backend, BackendType::kCPU);
  expectClose(dev.outputs[0], cpu.outputs[0], 1e-5, 1e-6, "RNN hidden 1025");
}

}  // namespace
}  // namespace test
}  // namespace tessera
