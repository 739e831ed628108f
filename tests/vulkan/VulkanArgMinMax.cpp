// ArgMax / ArgMin on Vulkan (shaders/vulkan/arg_min_max.comp) against the CPU, exactly: every
// axis (negative too), keepdims both, select_last_index both, lines of 1 to over a million
// around the switch-over to a line per work-group (128), values with many ties (so the first
// or last index decides, across the invocations of a group), NaNs, fp16 storage.
#include <cmath>

#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

// Small integers in [0, levels): a line's extreme occurs many times; exact in fp16.
Tensor tiedTensor(const Shape& s, uint32_t seed, int levels) {
  Tensor t = randomTensor(s, seed, 0.f, static_cast<float>(levels));
  for (int64_t i = 0; i < t.elementCount(); ++i) t.data<float>()[i] = std::floor(t.data<float>()[i]);
  return t;
}

Attributes argAttrs(int64_t axis, int keepdims, int last) {
  Attributes a;
  a.setInt("axis", axis);
  a.setInt("keepdims", keepdims);
  a.setInt("select_last_index", last);
  return a;
}

// Both ops, both tie rules, both keepdims, exact indices.
void expectArgs(const Tensor& x, int64_t axis) {
  for (const char* op : {"ArgMax", "ArgMin"})
    for (int last : {0, 1})
      for (int keep : {1, 0}) {
        SCOPED_TRACE(std::string(op) + " axis " + std::to_string(axis) + " last " + std::to_string(last) +
                     " keepdims " + std::to_string(keep));
        expectVulkanMatchesCpu(op, {x}, argAttrs(axis, keep, last), 1, {}, 13, 0.0, 0.0);
      }
}

TEST(VulkanArgMinMax, EveryAxisWithTies) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor x = tiedTensor({3, 5, 7, 9}, 600, 4);
  for (int64_t axis : {0, 1, 2, 3, -1, -2, -3, -4}) expectArgs(x, axis);
  expectArgs(randomTensor({2, 3, 5}, 601), 1);   // distinct values
  expectArgs(tiedTensor({13}, 602, 3), 0);       // rank 1: one output
}

TEST(VulkanArgMinMax, LineLengths) {
  TESSERA_REQUIRE_VULKAN();
  for (int64_t n : {1, 2, 63, 127, 128, 129, 1000}) {
    expectArgs(tiedTensor({3, n}, 610 + static_cast<uint32_t>(n), 5), -1);
    expectArgs(tiedTensor({2, n, 3}, 620 + static_cast<uint32_t>(n), 5), 1);  // strided lines
  }
  expectArgs(randomTensor({2, 1000}, 630), 1);
}

TEST(VulkanArgMinMax, LineOverAMillion) {
  TESSERA_REQUIRE_VULKAN();
  expectArgs(tiedTensor({2, 1048583}, 640, 50), 1);  // each extreme ~20000 times
  // One maximum near the end and one minimum near the start of a random line.
  Tensor x = randomTensor({1, 1048583}, 641);
  x.data<float>()[1048580] = 2.f;
  x.data<float>()[3] = -2.f;
  expectArgs(x, -1);
}

// The CPU's scan never replaces a NaN first element and never picks a later NaN.
TEST(VulkanArgMinMax, NaNs) {
  TESSERA_REQUIRE_VULKAN();
  const float nan = std::nanf("");
  for (int64_t n : {5, 300}) {
    Tensor x = tiedTensor({4, n}, 650 + static_cast<uint32_t>(n), 3);
    float* p = x.data<float>();
    p[0] = nan;                                   // line 0: NaN first
    p[n + 1] = nan;                               // line 1: NaNs inside
    p[n + n / 2] = nan;
    for (int64_t k = 0; k < n; ++k) p[2 * n + k] = nan;  // line 2: all NaN
    expectArgs(x, 1);
  }
}

TEST(VulkanArgMinMax, Fp16Storage) {
  TESSERA_REQUIRE_VULKAN();
  for (int64_t n : {9, 300})
    for (const char* op : {"ArgMax", "ArgMin"})
      for (int last : {0, 1})
        expectVulkanFp16Close(op, {tiedTensor({3, n, 2}, 660 + static_cast<uint32_t>(n), 7)}, argAttrs(1, 1, last),
                              {}, 0.0, 0.0);
}

}  // namespace
}  // namespace test
}  // namespace tessera
