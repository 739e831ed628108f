// Shared by the Vulkan suites: skip with the reason when no Vulkan device is present, and
// run an op on Vulkan and on the CPU, checking that Vulkan really ran it.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/GpuMatchesCpu.hpp"
#include "support/OpTest.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace test {

// Empty when Vulkan can run here; otherwise why not.
inline std::string vulkanUnavailableReason() {
  const BackendFactory* f = BackendRegistry::instance().find(BackendType::kVulkan);
  if (!f) return "the Vulkan backend is not built";
  std::unique_ptr<Backend> b;
  Status st = f->create(BackendOptions{}, &b);
  return st.isOk() ? "" : st.message();
}

#define TESSERA_REQUIRE_VULKAN()                                                   \
  do {                                                                             \
    const std::string why = ::tessera::test::vulkanUnavailableReason();           \
    if (!why.empty()) GTEST_SKIP() << "SKIP Vulkan: " << why;                      \
  } while (0)

// Runs `op` on Vulkan and on the CPU; every node must have run on Vulkan and the outputs
// must agree within the fp32 tolerances.
inline void expectVulkanMatchesCpu(const std::string& op, const std::vector<Tensor>& inputs,
                                   const Attributes& attrs, int numOutputs = 1,
                                   const std::vector<bool>& constant = {}, int opset = 17,
                                   double rtol = 1e-4, double atol = 1e-5) {
  expectGpuMatchesCpu(BackendType::kVulkan, op, inputs, attrs, numOutputs, constant, opset, rtol, atol);
}

}  // namespace test
}  // namespace tessera

namespace tessera {
namespace test {

// Runs a one-node graph on Vulkan with --precision fp16 (fp16 storage, fp32 arithmetic).
// Inputs flagged constant become initializers.
inline OpRun runOpVulkanFp16(const std::string& op, const std::vector<Tensor>& inputs, const Attributes& attrs,
                             int numOutputs, const std::vector<bool>& constant = {}) {
  return runOp(op, inputs, attrs, numOutputs, BackendType::kVulkan, constant, 17, Precision::kFP16);
}

// fp16 storage: inputs and every intermediate rounded to 11 significant bits.
inline void expectVulkanFp16Close(const std::string& op, const std::vector<Tensor>& inputs, const Attributes& attrs,
                                  const std::vector<bool>& constant = {}, double rtol = 1e-2, double atol = 1e-2) {
  OpRun cpu = runOp(op, inputs, attrs, 1, BackendType::kCPU, constant);
  ASSERT_TRUE(cpu.status.isOk()) << op << ": " << cpu.status.message();
  OpRun vk = runOpVulkanFp16(op, inputs, attrs, 1, constant);
  ASSERT_TRUE(vk.status.isOk()) << op << " fp16: " << vk.status.message();
  for (const auto& n : vk.report.nodes) ASSERT_EQ(n.backend, BackendType::kVulkan) << op << " fell back";
  expectClose(vk.outputs[0], cpu.outputs[0], rtol, atol, op + " fp16");
}

}  // namespace test
}  // namespace tessera
