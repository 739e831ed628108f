// The work-group trees (shaders/vulkan/workgroup.glsl) both ways: starting in subgroups
// (SUBGROUP builds, where the device has subgroup arithmetic: lavapipe has, 8 lanes) and
// in shared memory alone (TESSERA_VULKAN_SUBGROUPS=0). Every kernel built on them, over
// reduced lengths from 1 to over a million, against the CPU; and the subgroup builds really
// ran where the device has them, and never when turned off.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "backends/vulkan/VulkanDiagnostics.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

struct TreeCase {
  std::string op;
  std::vector<Tensor> inputs;
  Attributes attrs;
  double atol = 1e-5;
  bool grouped = true;  // runs a work-group variant (short lines: one invocation per line)
  double rtol = 1e-4;
};

Attributes ints(const std::string& name, const std::vector<int64_t>& v) {
  Attributes a;
  a.setInts(name, v);
  return a;
}

Attributes axisAttr(int64_t axis, int64_t last = -1) {
  Attributes a;
  a.setInt("axis", axis);
  if (last >= 0) a.setInt("select_last_index", last);
  return a;
}

// Values 0..3 (many ties across subgroups), a NaN every `nanEvery` elements (0: none).
Tensor tied(const Shape& s, uint32_t seed, int64_t nanEvery = 0) {
  Tensor t = randomTensor(s, seed, 0.f, 4.f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.elementCount(); ++i)
    p[i] = nanEvery > 0 && i % nanEvery == nanEvery - 1 ? std::numeric_limits<float>::quiet_NaN() : std::floor(p[i]);
  return t;
}

std::vector<TreeCase> cases() {
  std::vector<TreeCase> c;
  // Around the group variants' switch-over (128) and odd lengths, then past a million.
  for (int64_t n : {1, 7, 127, 128, 129, 1000, 1048583}) {
    const uint32_t seed = static_cast<uint32_t>(n % 1000);
    const double atol = n > 100000 ? 1e-3 : 1e-5;
    const bool grouped = n >= 128;
    // Reduce* leaves lines past lavapipe's loop limit to the CPU (ops/Reduce.cpp): 200003.
    const int64_t r = std::min<int64_t>(n, 200003);
    for (const char* op : {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceL2", "ReduceLogSumExp"})
      c.push_back({op, {randomTensor({2, r}, seed)}, ints("axes", {1}), atol, grouped});
    // Softmax's values are ~1e-5 over a million: no absolute slack, but fp32 sums of a million
    // terms in different orders (the CPU's and a tree's) differ by ~1.5e-3 relative.
    c.push_back({"Softmax", {randomTensor({2, n}, seed + 1, -5.f, 5.f)}, axisAttr(-1), 1e-9, grouped,
                 n > 100000 ? 3e-3 : 1e-4});
    c.push_back({"LogSoftmax", {randomTensor({2, n}, seed + 2, -5.f, 5.f)}, axisAttr(1), atol, grouped});
    c.push_back({"LayerNormalization", {randomTensor({2, n}, seed + 3), randomTensor({n}, 4), randomTensor({n}, 5)},
                 axisAttr(-1), n > 100000 ? 1e-4 : 1e-5, grouped});
    // 8 lines each (2 past a million): the winner falls in any subgroup; ties many (values
    // 0..3) or few.
    const int64_t L = n > 100000 ? 2 : 8;
    const int64_t nearEnd = n > 3 ? n - 2 : 0;  // a NaN near each line's end
    c.push_back({"ArgMax", {randomTensor({L, n}, seed + 4)}, axisAttr(1, 0), 0.0, grouped});
    c.push_back({"ArgMax", {tied({L, n}, seed + 4, nearEnd)}, axisAttr(1, 1), 0.0, grouped});
    c.push_back({"ArgMin", {tied({L, n}, seed + 5)}, axisAttr(-1, 1), 0.0, grouped});
    c.push_back({"ArgMin", {tied({L, n}, seed + 5, 37)}, axisAttr(-1, 0), 0.0, grouped});
    c.push_back({"Hardmax", {randomTensor({L, n}, seed + 6)}, axisAttr(-1), 0.0, grouped});
    c.push_back({"Hardmax", {tied({L, n}, seed + 6, nearEnd)}, axisAttr(-1), 0.0, grouped});
  }
  // Products near 1, so that 1000 factors neither vanish nor overflow.
  c.push_back({"ReduceProd", {randomTensor({2, 1000}, 10, 0.95f, 1.05f)}, ints("axes", {1}), 1e-5});
  // Whole planes: a million pixels; 20000-wide rows are past the image limit (NCHW buffers).
  for (const Shape& s : std::vector<Shape>{{1, 3, 1, 1}, {2, 5, 13, 11}, {1, 2, 1024, 1025}, {1, 6, 1, 20000}}) {
    c.push_back({"GlobalAveragePool", {randomTensor(s, 11)}, {}, 1e-5});
    c.push_back({"GlobalMaxPool", {randomTensor(s, 12)}, {}, 1e-5});
    c.push_back({"InstanceNormalization", {randomTensor(s, 13), randomTensor({s[1]}, 14), randomTensor({s[1]}, 15)},
                 {}, 1e-4, s[2] * s[3] >= 128});
  }
  c.push_back({"MeanVarianceNormalization", {randomTensor({2, 3, 40, 41}, 16)}, {}, 1e-5});
  return c;
}

// Sets TESSERA_VULKAN_SUBGROUPS for the sessions made in its scope.
struct SubgroupsSetting {
  explicit SubgroupsSetting(bool on) { setenv("TESSERA_VULKAN_SUBGROUPS", on ? "1" : "0", 1); }
  ~SubgroupsSetting() { unsetenv("TESSERA_VULKAN_SUBGROUPS"); }
};

// Every case with TESSERA_VULKAN_SUBGROUPS set to `on`; the subgroup builds must have run
// for the work-group variants when on and the device has them, and never otherwise.
void expectTreesMatchCpu(bool on) {
  const bool supported = vulkan::subgroupTreesSupported();
  SubgroupsSetting setting(on);
  for (const TreeCase& c : cases()) {
    SCOPED_TRACE(c.op + " " + shapeToString(c.inputs[0].shape()) + (on ? ", subgroups" : ", shared memory only"));
    const uint64_t before = vulkan::subgroupDispatchCount();
    expectVulkanMatchesCpu(c.op, c.inputs, c.attrs, 1, {}, 17, c.rtol, c.atol);
    const uint64_t ran = vulkan::subgroupDispatchCount() - before;
    if (on && supported && c.grouped)
      EXPECT_GT(ran, 0u) << "the subgroup build did not run";
    else if (!on || !supported)
      EXPECT_EQ(ran, 0u) << "a subgroup build ran";
  }
}

TEST(VulkanSubgroupTrees, WithSubgroups) {
  TESSERA_REQUIRE_VULKAN();
  expectTreesMatchCpu(true);
  if (!vulkan::subgroupTreesSupported())
    GTEST_SKIP() << "SKIP the device has no subgroup arithmetic at a size dividing 64: plain trees ran";
}

TEST(VulkanSubgroupTrees, SharedMemoryOnly) {
  TESSERA_REQUIRE_VULKAN();
  expectTreesMatchCpu(false);
}

// The FP16 builds of the subgroup kernels. Means near 1, so that a lost partial shows past
// fp16's tolerance.
TEST(VulkanSubgroupTrees, Fp16Storage) {
  TESSERA_REQUIRE_VULKAN();
  for (bool on : {true, false}) {
    SubgroupsSetting setting(on);
    expectVulkanFp16Close("ReduceMean", {randomTensor({3, 5000}, 20, 0.5f, 1.5f)}, ints("axes", {1}));
    expectVulkanFp16Close("Softmax", {randomTensor({2, 3000}, 21, -5.f, 5.f)}, axisAttr(-1));
    expectVulkanFp16Close("GlobalAveragePool", {randomTensor({1, 5, 70, 90}, 22, 0.5f, 1.5f)}, {});
    expectVulkanFp16Close("ArgMax", {tied({8, 3000}, 23)}, axisAttr(1, 1), {}, 0.0, 0.0);
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
