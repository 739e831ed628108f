// Shared by the Vulkan and OpenCL suites: how a GPU backend picks images or buffers for
// NC4HW4 tensors (core/src/Nc4StorageChoice.hpp). The choice follows the measured times,
// a measurement is made once and then read from the cache, and an override wins.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>

#include "core/src/CacheFile.hpp"
#include "core/src/Nc4StorageChoice.hpp"

namespace tessera {
namespace test {

// Sets (or, with nullptr, unsets) an environment variable for a scope, then restores it:
// the suites also run with the storage forced from outside.
class ScopedEnvVar {
 public:
  ScopedEnvVar(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) { had_ = true; old_ = old; }
    if (value) setenv(name, value, 1); else unsetenv(name);
  }
  ~ScopedEnvVar() { if (had_) setenv(name_, old_.c_str(), 1); else unsetenv(name_); }
  ScopedEnvVar(const ScopedEnvVar&) = delete;
  ScopedEnvVar& operator=(const ScopedEnvVar&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

// One backend under test: its override variable and a fresh backend's choice and cache key.
struct Nc4StorageProbe {
  const char* envVar;
  std::function<Nc4StorageChoice(Nc4Storage)> choose;  // a new backend's nc4Storage()
  std::function<std::string()> device;                 // its nc4StorageDevice()
};

// A cache directory of its own with no measurement in it, no override, and nothing
// remembered in the process. The compiled programs and pipelines stay shared with the usual
// cache (links), so the measurement does not compile every kernel again.
class FreshNc4Storage {
 public:
  explicit FreshNc4Storage(const char* envVar)
      : usual_(cachefile::directory()),
        dir_(std::filesystem::temp_directory_path() / ("tessera_nc4_" + std::to_string(getpid()))),
        cache_("TESSERA_CACHE_DIR", dir_.string().c_str()),
        override_(envVar, nullptr) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::error_code ignored;
    for (const char* sub : {"opencl", "vulkan"})
      if (!usual_.empty()) std::filesystem::create_directory_symlink(usual_ + "/" + sub, dir_ / sub, ignored);
    forgetNc4StorageChoices();
  }
  ~FreshNc4Storage() {
    forgetNc4StorageChoices();
    std::filesystem::remove_all(dir_);
  }

 private:
  std::string usual_;
  std::filesystem::path dir_;
  ScopedEnvVar cache_, override_;
};

// Stores these times as the device's measurement, as a measurement would.
inline void injectNc4Times(const Nc4StorageProbe& p, double imageMs, double bufferMs) {
  std::ostringstream data;
  data << imageMs << " " << bufferMs << "\n";
  const std::string path = nc4StorageCachePath(p.device());
  ASSERT_FALSE(path.empty());
  cachefile::makeDirs(cachefile::directory());
  ASSERT_TRUE(cachefile::write(path, nc4StorageCacheKey(p.device()), data.str()));
  forgetNc4StorageChoices();
}

inline void expectMeasuredOnceThenCached(const Nc4StorageProbe& p) {
  FreshNc4Storage fresh(p.envVar);
  const int before = nc4StorageMeasurements();
  const auto start = std::chrono::steady_clock::now();
  const Nc4StorageChoice first = p.choose(Nc4Storage::kAuto);
  const double took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(nc4StorageMeasurements(), before + 1);
  ASSERT_GT(first.imageMs, 0) << first.why;
  ASSERT_GT(first.bufferMs, 0) << first.why;
  EXPECT_EQ(first.images, first.imageMs <= first.bufferMs) << first.why;
  EXPECT_EQ(first.why.rfind("measured:", 0), 0u) << first.why;
  std::printf("[ measured ] %s (the measurement took %.0f ms)\n", describeNc4Storage(first).c_str(), took);

  // Another backend in this process, then one after forgetting (a new process): no new measurement.
  EXPECT_EQ(p.choose(Nc4Storage::kAuto).images, first.images);
  forgetNc4StorageChoices();
  const Nc4StorageChoice cached = p.choose(Nc4Storage::kAuto);
  EXPECT_EQ(nc4StorageMeasurements(), before + 1) << "the second choice must read the cache";
  EXPECT_EQ(cached.imageMs, first.imageMs);
  EXPECT_EQ(cached.bufferMs, first.bufferMs);
  EXPECT_EQ(cached.images, first.images);
  EXPECT_NE(cached.why.find("cached"), std::string::npos) << cached.why;
}

inline void expectChoiceFollowsTimes(const Nc4StorageProbe& p) {
  FreshNc4Storage fresh(p.envVar);
  const int before = nc4StorageMeasurements();
  injectNc4Times(p, 1.0, 2.0);
  EXPECT_TRUE(p.choose(Nc4Storage::kAuto).images) << "images measured faster";
  injectNc4Times(p, 2.0, 1.0);
  EXPECT_FALSE(p.choose(Nc4Storage::kAuto).images) << "buffers measured faster";
  injectNc4Times(p, 1.5, 1.5);
  EXPECT_TRUE(p.choose(Nc4Storage::kAuto).images) << "images on a tie";
  injectNc4Times(p, -1, 3.0);
  EXPECT_FALSE(p.choose(Nc4Storage::kAuto).images) << "images could not run the net";
  EXPECT_EQ(nc4StorageMeasurements(), before) << "injected times must not be measured again";
}

inline void expectOverrideWins(const Nc4StorageProbe& p) {
  FreshNc4Storage fresh(p.envVar);
  injectNc4Times(p, 1.0, 2.0);  // images faster
  {
    ScopedEnvVar force(p.envVar, "buffer");
    const Nc4StorageChoice c = p.choose(Nc4Storage::kAuto);
    EXPECT_FALSE(c.images);
    EXPECT_EQ(c.why, std::string("forced by ") + p.envVar + "=buffer");
    EXPECT_TRUE(p.choose(Nc4Storage::kImage).images) << "the Session's options win over the environment";
  }
  injectNc4Times(p, 2.0, 1.0);  // buffers faster
  {
    ScopedEnvVar force(p.envVar, "image");
    EXPECT_TRUE(p.choose(Nc4Storage::kAuto).images);
    EXPECT_FALSE(p.choose(Nc4Storage::kBuffer).images);
  }
  {
    ScopedEnvVar measured(p.envVar, "auto");
    EXPECT_FALSE(p.choose(Nc4Storage::kAuto).images) << "auto follows the measurement";
  }
}

}  // namespace test
}  // namespace tessera
