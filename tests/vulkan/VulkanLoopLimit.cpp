// Kernels whose invocations loop over a whole extent (reductions, Softmax, Hardmax, the row
// normalisations, MatMul's K, pools), at extents past lavapipe's loop limit (docs/VULKAN.md:
// it ends an invocation's loops after 65535 iterations in all, silently). A Vulkan session
// must still give the CPU's answers: reductions, Softmax, Hardmax, ArgMax, the row
// normalisations and global pools by spreading each output over a work-group (checked: on
// Vulkan), the others on lavapipe by leaving those nodes to the CPU (checked), elsewhere on
// Vulkan. Before, each of these was wrong on lavapipe (ReduceMean over 30000 elements off by
// 0.2 of 0.5, Softmax over 30000 all but zeros).
#include "backends/vulkan/VulkanContext.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

struct LongCase {
  std::string op;
  std::vector<Tensor> inputs;
  Attributes attrs;
  bool onGpu = false;  // spread over a work-group: stays on Vulkan even under the limit
};

Attributes axes(const std::vector<int64_t>& a) {
  Attributes r;
  r.setInts("axes", a);
  return r;
}

Attributes axis(int64_t a) {
  Attributes r;
  r.setInt("axis", a);
  return r;
}

// 0 .. 1 in order: a loop cut short changes a mean or a maximum (random values would hide it).
Tensor ramp(const Shape& s) {
  Tensor t = Tensor::hostAllocate(s, DataType::kF32);
  const int64_t n = t.elementCount();
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = static_cast<float>(i) / static_cast<float>(n);
  return t;
}

TEST(VulkanLoopLimit, LongLoopsMatchCpu) {
  TESSERA_REQUIRE_VULKAN();
  const std::vector<LongCase> cases = {
      {"ReduceMean", {randomTensor({1, 30000}, 1)}, axes({1}), true},
      {"ReduceSum", {randomTensor({2, 3, 150, 150}, 2)}, axes({2, 3}), true},
      {"ReduceMax", {randomTensor({3, 70001}, 3)}, axes({-1}), true},
      {"Softmax", {randomTensor({2, 30000}, 4, -5.f, 5.f)}, axis(1), true},
      {"Hardmax", {randomTensor({2, 40000}, 5)}, axis(1), true},
      {"ArgMax", {ramp({2, 100000})}, axis(1), true},
      {"LayerNormalization", {randomTensor({2, 20000}, 6), randomTensor({20000}, 7), randomTensor({20000}, 8)}, axis(-1),
       true},
      {"InstanceNormalization", {randomTensor({1, 2, 131, 131}, 9), randomTensor({2}, 10), randomTensor({2}, 11)}, {},
       true},
      {"MatMul", {randomTensor({2, 70000}, 12), randomTensor({70000, 3}, 13)}, {}},
      {"GlobalAveragePool", {ramp({1, 2, 300, 300})}, {}, true},
      {"GlobalMaxPool", {ramp({1, 2, 300, 300})}, {}, true},
  };
  std::shared_ptr<VulkanContext> ctx;
  ASSERT_TRUE(VulkanContext::get("", &ctx).isOk());
  const bool limited = ctx->info().invocationLoopLimit != 0;
  for (const LongCase& c : cases) {
    OpRun cpu = runOp(c.op, c.inputs, c.attrs, 1, BackendType::kCPU);
    OpRun vk = runOp(c.op, c.inputs, c.attrs, 1, BackendType::kVulkan);
    ASSERT_TRUE(cpu.status.isOk()) << c.op << ": " << cpu.status.message();
    ASSERT_TRUE(vk.status.isOk()) << c.op << ": " << vk.status.message();
    expectClose(vk.outputs[0], cpu.outputs[0], 1e-4, 1e-3, c.op + " past the loop limit");
    ASSERT_EQ(vk.report.nodes.size(), 1u) << c.op;
    if (c.onGpu)
      EXPECT_EQ(vk.report.nodes[0].backend, BackendType::kVulkan) << c.op << " should have run on Vulkan";
    else if (limited)
      EXPECT_EQ(vk.report.nodes[0].backend, BackendType::kCPU) << c.op << " should have stayed on the CPU";
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
