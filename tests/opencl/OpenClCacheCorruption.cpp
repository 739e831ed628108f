// The OpenCL on-disk caches are not trusted as written: a truncated, bit-flipped, foreign or
// old-format program binary is discarded and rebuilt (PoCL once aborted deserialising one);
// tuning results with a bad checksum, or a work-group size the kernel cannot take, are
// tuned again (one once made the classifier return NaN); an unwritable cache directory only
// turns caching off. Results stay correct throughout.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "backends/opencl/OpenClBackend.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace {

const char kSource[] = "__kernel void twice(__global float* x) { x[get_global_id(0)] *= SCALE; }";

// A fresh TESSERA_CACHE_DIR for one test, restored and removed afterwards.
class CacheDir {
 public:
  CacheDir() {
    char dir[] = "/tmp/tessera-clcorrupt-XXXXXX";
    path_ = mkdtemp(dir) ? dir : "";
    const char* old = std::getenv("TESSERA_CACHE_DIR");
    hadOld_ = old != nullptr;
    if (old) old_ = old;
    setenv("TESSERA_CACHE_DIR", path_.c_str(), 1);
  }
  ~CacheDir() {
    if (hadOld_) setenv("TESSERA_CACHE_DIR", old_.c_str(), 1);
    else unsetenv("TESSERA_CACHE_DIR");
    if (!path_.empty()) std::system(("rm -rf '" + path_ + "'").c_str());
  }
  const std::string& path() const { return path_; }
  // The files directly under DIR/opencl whose names contain `part`.
  std::vector<std::string> files(const std::string& part) const {
    std::vector<std::string> out;
    const std::string listing = path_ + "/listing";
    std::system(("ls '" + path_ + "/opencl' > '" + listing + "' 2>/dev/null").c_str());
    std::ifstream f(listing);
    for (std::string name; std::getline(f, name);)
      if (name.find(part) != std::string::npos) out.push_back(path_ + "/opencl/" + name);
    return out;
  }

 private:
  std::string path_, old_;
  bool hadOld_ = false;
};

std::string readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void writeAll(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << data;
}

// Runs `twice` (SCALE 2) from `program` over n values and checks every result.
void expectTwiceWorks(opencl::Runtime& rt, cl_program program, const opencl::WorkSize* work = nullptr) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program, "twice", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t n = work ? work->global[0] : 1000;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  cl_mem buf = clCreateBuffer(rt.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, x.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  clSetKernelArg(k, 0, sizeof buf, &buf);
  cl_command_queue q = nullptr;
  ASSERT_TRUE(rt.createQueue(false, &q).isOk());
  opencl::WorkSize w;
  w.global = {n, 1, 1};
  if (work) w = *work;
  const std::array<size_t, 3> g = opencl::roundedGlobal(w);
  ASSERT_EQ(clEnqueueNDRangeKernel(q, k, 1, nullptr, g.data(), w.driverChoice() ? nullptr : w.local.data(), 0, nullptr,
                                   nullptr),
            CL_SUCCESS);
  ASSERT_EQ(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n * 4, x.data(), 0, nullptr, nullptr), CL_SUCCESS);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(x[i], 2.f * static_cast<float>(i)) << "at " << i;
  clReleaseCommandQueue(q);
  clReleaseMemObject(buf);
  clReleaseKernel(k);
}

TEST(OpenClCacheCorruption, ProgramBinariesThatDoNotCheckOutAreRebuilt) {
  REQUIRE_OPENCL();
  std::shared_ptr<opencl::Runtime> rt;
  ASSERT_TRUE(opencl::Runtime::get("", &rt).isOk());
  CacheDir dir;
  {
    opencl::ProgramCache writer(rt->context(), rt->info());
    cl_program p = nullptr;
    ASSERT_TRUE(writer.build("twice", kSource, "-DSCALE=2", &p).isOk());
  }
  const std::vector<std::string> files = dir.files("twice-");
  ASSERT_EQ(files.size(), 1u);
  const std::string good = readAll(files[0]);
  const size_t body = good.find('\n', good.find('\n') + 1) + 1;  // after the two header lines
  ASSERT_GT(good.size(), body + 64);

  struct Corruption {
    const char* what;
    std::string bytes;
  };
  std::string flippedBody = good, flippedHeader = good, flippedKey = good;
  flippedBody[body + (good.size() - body) / 2] ^= 0x10;
  flippedHeader[3] ^= 0x01;
  flippedKey[good.find('\n') + 2] ^= 0x01;
  const Corruption corruptions[] = {
      {"truncated to half", good.substr(0, good.size() / 2)},
      {"truncated inside the header", good.substr(0, 20)},
      {"a bit flipped in the binary", flippedBody},
      {"a bit flipped in the magic", flippedHeader},
      {"a bit flipped in the key hash", flippedKey},
      {"empty", ""},
      {"the old format (no checksum)", "TESSERA-OPENCL-BINARY-1\n" + good.substr(body)},
  };
  for (const Corruption& c : corruptions) {
    writeAll(files[0], c.bytes);
    opencl::ProgramCache reader(rt->context(), rt->info());
    cl_program p = nullptr;
    ASSERT_TRUE(reader.build("twice", kSource, "-DSCALE=2", &p).isOk()) << c.what;
    EXPECT_EQ(reader.stats().discarded, 1) << c.what;
    EXPECT_EQ(reader.stats().loadedFromDisk, 0) << c.what;
    EXPECT_EQ(reader.stats().builtFromSource, 1) << c.what;
    expectTwiceWorks(*rt, p);
    // The rebuilt entry is whole again: the next start loads it.
    opencl::ProgramCache next(rt->context(), rt->info());
    ASSERT_TRUE(next.build("twice", kSource, "-DSCALE=2", &p).isOk()) << c.what;
    EXPECT_EQ(next.stats().loadedFromDisk, 1) << c.what;
    EXPECT_EQ(next.stats().discarded, 0) << c.what;
    expectTwiceWorks(*rt, p);
  }
}

TEST(OpenClCacheCorruption, UnwritableCacheDirectoryOnlyDisablesCaching) {
  REQUIRE_OPENCL();
  std::shared_ptr<opencl::Runtime> rt;
  ASSERT_TRUE(opencl::Runtime::get("", &rt).isOk());
  CacheDir dir;
  writeAll(dir.path() + "/opencl", "a file where the cache directory should be");
  for (int start = 0; start < 2; ++start) {
    opencl::ProgramCache cache(rt->context(), rt->info());
    cl_program p = nullptr;
    ASSERT_TRUE(cache.build("twice", kSource, "-DSCALE=2", &p).isOk());
    EXPECT_EQ(cache.stats().builtFromSource, 1);  // nothing could be stored, nothing is loaded
    expectTwiceWorks(*rt, p);
  }
}

TEST(OpenClCacheCorruption, TuningEntriesThatDoNotCheckOutAreTunedAgain) {
  REQUIRE_OPENCL();
  std::shared_ptr<opencl::Runtime> rt;
  ASSERT_TRUE(opencl::Runtime::get("", &rt).isOk());
  CacheDir dir;
  cl_program program = nullptr;
  ASSERT_TRUE(rt->programs().build("twice", kSource, "-DSCALE=2", &program).isOk());
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, "twice", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t n = 1 << 16;
  cl_mem buf = clCreateBuffer(rt->context(), CL_MEM_READ_WRITE, n * 4, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  clSetKernelArg(kernel, 0, sizeof buf, &buf);
  cl_command_queue q = nullptr;
  ASSERT_TRUE(rt->createQueue(false, &q).isOk());
  auto tuneWith = [&](opencl::Tuner& t, opencl::WorkSize* w) {
    w->dims = 1;
    w->global = {n, 1, 1};
    ASSERT_TRUE(t.tune(q, kernel, "twice-test", w).isOk());
  };
  {
    opencl::Tuner first(rt->info());
    if (!first.enabled()) GTEST_SKIP() << "TESSERA_OPENCL_TUNE=off";
    opencl::WorkSize w;
    tuneWith(first, &w);
    EXPECT_EQ(first.timedCount(), 1);
  }
  const std::vector<std::string> files = dir.files("tuning-");
  ASSERT_EQ(files.size(), 1u);
  const std::string line = readAll(files[0]);
  const size_t sum = line.rfind('|'), bar = line.rfind('|', sum - 1);
  const std::string key = line.substr(0, bar);
  {
    opencl::Tuner cached(rt->info());  // the entry as written is trusted
    opencl::WorkSize w;
    tuneWith(cached, &w);
    EXPECT_EQ(cached.timedCount(), 0);
  }
  const std::pair<const char*, std::string> bad[] = {
      // A checksum that matches but a size no device takes: not one of the candidates.
      {"an impossible size with a valid checksum", opencl::Tuner::entryLine(key, {1000000, 1, 1}) + "\n"},
      {"a size the kernel may take but tuning never offers", opencl::Tuner::entryLine(key, {3, 1, 1}) + "\n"},
      {"the size edited, the checksum not", key + "|7 1 1" + line.substr(sum)},
      {"the old format (no checksum)", key + "|64 1 1\n"},
      {"garbage", "\x01\x02|||\n"},
  };
  for (const auto& b : bad) {
    writeAll(files[0], b.second);
    opencl::Tuner t(rt->info());
    opencl::WorkSize w;
    tuneWith(t, &w);
    EXPECT_EQ(t.timedCount(), 1) << b.first;
    EXPECT_TRUE(w.local[0] == 0 || (w.local[0] % 16 == 0 && w.local[0] <= 256)) << b.first << ": " << w.local[0];
    expectTwiceWorks(*rt, program, &w);
  }
  clReleaseCommandQueue(q);
  clReleaseMemObject(buf);
  clReleaseKernel(kernel);
}

}  // namespace
}  // namespace tessera
