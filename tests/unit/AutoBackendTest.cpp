// "auto" (tessera/AutoBackend.hpp): GPU backends only on GPUs, the faster of Vulkan and OpenCL
// first where both drive one, measured once per device pair and precision and then read from
// the cache. TESSERA_AUTO_ANY_DEVICE=1 lets this machine's CPU-run drivers stand in for a GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tessera/AutoBackend.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;

struct ScopedEnv {
  ScopedEnv(const char* name, const std::string& value) : name_(name) { setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name_); }
  const char* name_;
};

bool present(BackendType t, bool* gpu) {
  const BackendFactory* f = BackendRegistry::instance().find(t);
  std::unique_ptr<Backend> b;
  if (!f || !f->create(BackendOptions{}, &b).isOk()) return false;
  *gpu = b->deviceKind() == DeviceKind::kDiscreteGPU || b->deviceKind() == DeviceKind::kIntegratedGPU;
  return true;
}

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().rfind("auto_backend_", 0) == 0) out.push_back(e.path());
  return out;
}

TEST(AutoBackend, GpuBackendsOnlyOnGpusAndTheCpuLast) {
  const fs::path dir = fs::temp_directory_path() / ("tessera_auto_" + std::to_string(getpid()));
  ScopedEnv cache("TESSERA_CACHE_DIR", dir.string());
  const AutoBackendChoice c = chooseAutoBackends(BackendOptions{});
  ASSERT_FALSE(c.backends.empty());
  EXPECT_EQ(c.backends.back(), BackendType::kCPU);
  for (BackendType t : {BackendType::kVulkan, BackendType::kOpenCL}) {
    bool gpu = false;
    const bool listed = std::find(c.backends.begin(), c.backends.end(), t) != c.backends.end();
    EXPECT_EQ(listed, present(t, &gpu) && gpu) << backendTypeName(t);
  }
  fs::remove_all(dir);
}

TEST(AutoBackend, FasterGpuBackendFirstMeasuredOnceThenCached) {
  bool gpu = false;
  if (!present(BackendType::kVulkan, &gpu) || !present(BackendType::kOpenCL, &gpu))
    GTEST_SKIP() << "needs both GPU backends";
  const fs::path dir = fs::temp_directory_path() / ("tessera_auto_" + std::to_string(getpid()));
  fs::remove_all(dir);
  ScopedEnv cache("TESSERA_CACHE_DIR", dir.string());
  ScopedEnv any("TESSERA_AUTO_ANY_DEVICE", "1");

  const AutoBackendChoice first = chooseAutoBackends(BackendOptions{});
  EXPECT_TRUE(first.measured);
  ASSERT_EQ(first.backends.size(), 3u);
  ASSERT_EQ(first.ms.size(), 2u);
  EXPECT_GT(first.ms[0].second, 0);
  EXPECT_GT(first.ms[1].second, 0);
  const double vk = first.ms[0].first == BackendType::kVulkan ? first.ms[0].second : first.ms[1].second;
  const double cl = first.ms[0].first == BackendType::kOpenCL ? first.ms[0].second : first.ms[1].second;
  EXPECT_EQ(first.backends[0], cl < vk ? BackendType::kOpenCL : BackendType::kVulkan) << vk << " vs " << cl;
  EXPECT_EQ(first.backends[2], BackendType::kCPU);
  ASSERT_EQ(entries(dir).size(), 1u) << "one cache entry per device pair and precision";

  const AutoBackendChoice again = chooseAutoBackends(BackendOptions{});
  EXPECT_FALSE(again.measured) << "the second choice reads the cache";
  EXPECT_EQ(again.backends, first.backends);
  EXPECT_EQ(again.ms, first.ms);

  // Another precision is another entry; a damaged entry is measured again, not trusted.
  BackendOptions fp16;
  fp16.precision = Precision::kFP16;
  EXPECT_TRUE(chooseAutoBackends(fp16).measured);
  EXPECT_EQ(entries(dir).size(), 2u);
  for (const fs::path& p : entries(dir)) std::ofstream(p, std::ios::trunc) << "garbage";
  EXPECT_TRUE(chooseAutoBackends(BackendOptions{}).measured);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tessera
