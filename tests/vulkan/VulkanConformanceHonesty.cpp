// The conformance harness counts a Vulkan pass only when the Vulkan kernel ran: a 1-D Split
// whose `split` sizes are a graph input (ONNX test_split_variable_parts_1d) runs on Vulkan
// with its data input a run-time tensor, not folded on the CPU at planning, so a
// deliberately broken Vulkan Split kernel makes the case FAIL.
#include "tessera/VulkanKernel.hpp"
#include "tests/support/NodeCase.hpp"
#include "tests/support/TestKernels.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace {

const char kCase[] = "test_split_variable_parts_1d";
const char kProvider[] = "test_broken_split";

// Broken on purpose: every output copies the start of x, ignoring where its part begins.
const char kBrokenSplit[] = R"GLSL(#version 450
F32_IN(0, x);
F32_OUT(1, y);
void main() {
  uint i = gid();
  if (i >= P[0]) return;
  y[i] = x[i];
}
)GLSL";

class BrokenSplit final : public VulkanCustomExecution {
 public:
  explicit BrokenSplit(Backend* b) : VulkanCustomExecution(b) { setHostConstantInputs({1}); }

  Status onPrepare(const Tensors&, const Tensors&) override {
    return buildPipeline("broken_split", kBrokenSplit, {}, &pipeline_);
  }

  Status onPlan(const Tensors& in, const Tensors& out) override {
    for (const Tensor* y : out) {
      VulkanDispatch* d = nullptr;
      TESSERA_RETURN_IF_ERROR(addDispatch(pipeline_, &d));
      d->tensor(in[0]).tensor(y).param(uint32_t(y->elementCount())).invocations(y->elementCount());
    }
    return Status::ok();
  }

 private:
  VulkanPipeline pipeline_;
};

TEST(VulkanConformanceHonesty, OneDimensionalSplitRunsOnVulkan) {
  TESSERA_REQUIRE_VULKAN();
  const cli::CaseResult r = test::runOnnxNodeCase(kCase, BackendType::kVulkan);
  ASSERT_EQ(r.status, "PASS") << r.reason;
  test::expectEveryNodeRanOn(r, BackendType::kVulkan, kCase);
}

TEST(VulkanConformanceHonesty, BrokenKernelFailsTheOneDimensionalCase) {
  TESSERA_REQUIRE_VULKAN();
  ASSERT_TRUE(test::registerTestKernel<BrokenSplit>(BackendType::kVulkan, kProvider, "Split"));
  const cli::CaseResult r = test::runOnnxNodeCase(kCase, BackendType::kVulkan, kProvider);
  EXPECT_EQ(r.status, "FAIL") << "a broken Vulkan Split kernel passed " << kCase;
  // Caught by comparing the outputs, not by a planning error.
  EXPECT_GT(r.maxAbsErr, 1.0) << r.reason;
  test::expectEveryNodeRanOn(r, BackendType::kVulkan, kCase);
}

}  // namespace
}  // namespace tessera
