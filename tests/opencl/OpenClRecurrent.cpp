// OpenCL RNN, GRU and LSTM against the CPU: the shared sweep (tests/support/
// RecurrentGpuCases.hpp: every direction, both layouts, unequal lengths, clip,
// linear_before_reset, peepholes, input_forget, activations with alpha/beta, outputs left
// out, hidden sizes past one work-group), and a constant out-of-range sequence_lens left to
// the CPU (which reports it).
#include "support/RecurrentGpuCases.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(OpenClRecurrent, MatchesCpu) {
  REQUIRE_OPENCL();
  for (const RecurrentGpuCase& c : recurrentGpuSweep()) expectGpuMatchesCpu(c, BackendType::kOpenCL);
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

}  // namespace
}  // namespace test
}  // namespace tessera
