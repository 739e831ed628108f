// A Vulkan Relu made wrong by 1e-3 (a custom-kernel provider) is named by findDivergence
// against the CPU's trace, and the same graph traced on Vulkan has the hand-computed values
// (tests/unit/TraceTest.cpp).
#include "tessera/VulkanKernel.hpp"
#include "tests/support/OpTest.hpp"
#include "tests/support/TestKernels.hpp"
#include "tests/support/TraceGraph.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace {

const char kPerturbedRelu[] = R"GLSL(#version 450
F32_IN(0, x);
F32_OUT(1, y);
void main() {
  uint i = gid();
  if (i >= P[0]) return;
  y[i] = max(x[i], 0.0) + pfloat(1);
}
)GLSL";

class VulkanPerturbedRelu final : public VulkanCustomExecution {
 public:
  using VulkanCustomExecution::VulkanCustomExecution;
  Status onPrepare(const Tensors&, const Tensors&) override {
    return buildPipeline("perturbed_relu", kPerturbedRelu, {}, &pipeline_);
  }
  Status onPlan(const Tensors& in, const Tensors& out) override {
    VulkanDispatch* d = nullptr;
    TESSERA_RETURN_IF_ERROR(addDispatch(pipeline_, &d));
    const int64_t n = out[0]->elementCount();
    d->tensor(in[0]).tensor(out[0]).param(uint32_t(n)).param(test::kPerturbation).invocations(n);
    return Status::ok();
  }

 private:
  VulkanPipeline pipeline_;
};

TEST(VulkanDivergence, PerturbedKernelIsFound) {
  TESSERA_REQUIRE_VULKAN();
  ASSERT_TRUE(test::registerTestKernel<VulkanPerturbedRelu>(BackendType::kVulkan, test::perturbedProvider(), "Relu"));
  test::expectPerturbedReluFound(BackendType::kVulkan, test::randomTensor({2, 3, 5, 7}, 9));
}

}  // namespace
}  // namespace tessera
