// The check every GPU op test makes: the op on a GPU backend against the CPU backend, every
// node run by the GPU backend (none folded at planning, none left to the CPU fallback), the
// outputs within fp32 tolerances. Shared case files (tests/support/*GpuCases.hpp) take the
// backend, so the Vulkan and OpenCL suites run the same cases.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {

inline void expectGpuMatchesCpu(BackendType gpu, const std::string& op, const std::vector<Tensor>& inputs,
                                const Attributes& attrs, int numOutputs = 1, const std::vector<bool>& constant = {},
                                int opset = 17, double rtol = 1e-4, double atol = 1e-5, std::string what = "") {
  if (what.empty()) what = op + " " + (inputs.empty() ? "" : shapeToString(inputs[0].shape()));
  const char* name = backendTypeName(gpu);
  OpRun cpu = runOp(op, inputs, attrs, numOutputs, BackendType::kCPU, constant, opset);
  ASSERT_TRUE(cpu.status.isOk()) << what << " on the CPU: " << cpu.status.message();
  OpRun g = runOp(op, inputs, attrs, numOutputs, gpu, constant, opset);
  ASSERT_TRUE(g.status.isOk()) << what << " on " << name << ": " << g.status.message();
  ASSERT_FALSE(g.report.nodes.empty()) << what;
  for (const auto& n : g.report.nodes) {
    ASSERT_FALSE(n.folded) << what << ": " << n.node << " was folded at planning";
    ASSERT_EQ(n.backend, gpu) << what << ": " << n.node << " ran on " << backendTypeName(n.backend) << ", not "
                              << name;
  }
  ASSERT_EQ(cpu.outputs.size(), g.outputs.size());
  for (size_t i = 0; i < cpu.outputs.size(); ++i)
    expectClose(g.outputs[i], cpu.outputs[i], rtol, atol, what + " output " + std::to_string(i));
}

}  // namespace test
}  // namespace tessera
