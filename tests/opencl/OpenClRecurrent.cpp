// OpenCL RNN, GRU and LSTM against the CPU: the shared sweep (tests/support/
// RecurrentGpuCases.hpp: every direction, both layouts, unequal lengths, clip,
// linear_before_reset, peepholes, input_forget, activations with alpha/beta, outputs left
// out, hidden sizes past one work-group), and a constant out-of-range sequence_lens left to
// the CPU (which reports it), as is a hidden size past the kernel's limit.
#include "support/RecurrentGpuCases.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(OpenClRecurrent, MatchesCpu) {
  REQUIRE_OPENCL();
  for (const RecurrentGpuCase& c : recurrentGpuSweep()) expectGpuMatchesCpu(c, BackendType::kOpenCL);
}

TEST(OpenClRecurrent, LongSequencesMatchCpu) {
  REQUIRE_OPENCL();
  for (const RecurrentGpuCase& c : recurrentLongSweep()) expectGpuMatchesCpu(c, BackendType::kOpenCL);
}

TEST(OpenClRecurrent, ConstantLengthsOutOfRangeStayOnCpu) {
  REQUIRE_OPENCL();
  RecurrentGpuCase c;
  c.op = "LSTM", c.batch = 2, c.seq = 3, c.lens = {4, 1};
  std::vector<bool> constant;
  std::vector<Tensor> in = recurrentInputs(c, &constant);
  constant[4] = true;
  OpRun r = runOp("LSTM", in, recurrentAttributes(c), 2, BackendType::kOpenCL, constant, 14);
  EXPECT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("sequence_lens"), std::string::npos) << r.status.message();
}

// Past the kernel's 1024 hidden units (its shared arrays) the node runs on the CPU, correctly.
TEST(OpenClRecurrent, HiddenPastLimitRunsOnCpu) {
  REQUIRE_OPENCL();
  RecurrentGpuCase c;
  c.op = "RNN", c.input = 1, c.hidden = 1025;
  OpRun cpu = runRecurrentCase(c, BackendType::kCPU);
  OpRun dev = runRecurrentCase(c, BackendType::kOpenCL);
  ASSERT_TRUE(dev.status.isOk()) << dev.status.message();
  ASSERT_EQ(dev.report.nodes.size(), 1u);
  EXPECT_EQ(dev.report.nodes[0].backend, BackendType::kCPU);
  expectClose(dev.outputs[0], cpu.outputs[0], 1e-5, 1e-6, "RNN hidden 1025");
}

}  // namespace
}  // namespace test
}  // namespace tessera
