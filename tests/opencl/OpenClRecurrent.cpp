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
  expectConstantLengthsOutOfRangeFail("LSTM", BackendType::kOpenCL);
}

TEST(OpenClRecurrent, HiddenPastLimitRunsOnCpu) {
  REQUIRE_OPENCL();
  expectHiddenPastLimitOnCpu(BackendType::kOpenCL);
}

}  // namespace
}  // namespace test
}  // namespace tessera
