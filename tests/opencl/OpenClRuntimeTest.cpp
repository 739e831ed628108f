// The OpenCL runtime: build errors, program-binary cache, image limits (buffer fallback),
// device selection, fp16 requests, profiling, and a machine with no OpenCL platform.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "backends/opencl/OpenClBackend.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"
#include "tests/support/Nc4StorageChecks.hpp"  // ScopedEnvVar

extern char** environ;

namespace tessera {
namespace {

std::unique_ptr<Backend> createOpenCl(const BackendOptions& o = {}) {
  std::unique_ptr<Backend> b;
  EXPECT_TRUE(BackendRegistry::instance().find(BackendType::kOpenCL)->create(o, &b).isOk());
  return b;
}

TEST(OpenClRuntime, KernelBuildErrorIsAClearStatus) {
  REQUIRE_OPENCL();
  std::shared_ptr<opencl::Runtime> rt;
  ASSERT_TRUE(opencl::Runtime::get("", &rt).isOk());
  cl_program p = nullptr;
  Status st = rt->programs().build("broken_kernel", "__kernel void k(__global float* x) { x[0] = no_such_name; }",
                                   "-DFLOAT=float", &p);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("broken_kernel"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("failed to build"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("no_such_name"), std::string::npos) << "the build log is missing: " << st.message();
}

TEST(OpenClRuntime, ProgramBinariesAreCachedOnDiskWithAStrictKey) {
  REQUIRE_OPENCL();
  std::shared_ptr<opencl::Runtime> rt;
  ASSERT_TRUE(opencl::Runtime::get("", &rt).isOk());
  char dir[] = "/tmp/tessera-clcache-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const char* old = std::getenv("TESSERA_CACHE_DIR");
  const std::string saved = old ? old : "";
  setenv("TESSERA_CACHE_DIR", dir, 1);
  const std::string src = "__kernel void twice(__global float* x) { x[get_global_id(0)] *= SCALE; }";
  cl_program p = nullptr;
  {
    opencl::ProgramCache first(rt->context(), rt->info());
    ASSERT_TRUE(first.build("twice", src, "-DSCALE=2", &p).isOk());
    EXPECT_EQ(first.stats().builtFromSource, 1);
  }
  {
    opencl::ProgramCache second(rt->context(), rt->info());  // a new process, as it were
    ASSERT_TRUE(second.build("twice", src, "-DSCALE=2", &p).isOk());
    EXPECT_EQ(second.stats().loadedFromDisk, 1);
    EXPECT_EQ(second.stats().builtFromSource, 0);
    ASSERT_TRUE(second.build("twice", src, "-DSCALE=3", &p).isOk());  // other options: a miss
    EXPECT_EQ(second.stats().builtFromSource, 1);
    ASSERT_TRUE(second.build("twice", src + "\n", "-DSCALE=2", &p).isOk());  // other source: a miss
    EXPECT_EQ(second.stats().builtFromSource, 2);
  }
  if (old) setenv("TESSERA_CACHE_DIR", saved.c_str(), 1);
  else unsetenv("TESSERA_CACHE_DIR");
  std::system((std::string("rm -rf ") + dir).c_str());
}

TEST(OpenClRuntime, TensorsPastTheImageLimitUseBuffers) {
  REQUIRE_OPENCL();
  test::ScopedEnvVar images("TESSERA_OPENCL_NC4_STORAGE", "image");  // whatever this device measures
  auto b = createOpenCl();
  auto* cl = static_cast<OpenClBackend*>(b.get());
  if (!cl->device().images) GTEST_SKIP() << "device has no images: every NC4HW4 tensor is a buffer";
  const int64_t maxW = static_cast<int64_t>(cl->device().image2dMaxWidth);
  Tensor small({1, 5, 3, 7}, DataType::kF32, Layout::kNC4HW4);
  Tensor wide({1, 5, 2, maxW + 1}, DataType::kF32, Layout::kNC4HW4);  // C4 * W > limit
  ASSERT_TRUE(cl->onAcquireBuffer(&small, StorageType::kStatic).isOk());
  ASSERT_TRUE(cl->onAcquireBuffer(&wide, StorageType::kStatic).isOk());
  EXPECT_TRUE(OpenClBackend::storage(&small)->image);
  EXPECT_FALSE(OpenClBackend::storage(&wide)->image);

  // End to end: a buffer input, and an image input with a buffer output (mixed storage).
  Attributes a;
  a.setInts("pads", {1, 1, 1, 1});
  test::expectOpenClMatchesCpu("Conv", {test::randomTensor({1, 3, 2, maxW + 3}, 80), test::randomTensor({5, 3, 3, 3}, 81)},
                               a, "Conv on buffers", {false, true});
  test::expectOpenClMatchesCpu("Conv", {test::randomTensor({1, 4, 2, maxW / 2 + 1}, 82), test::randomTensor({8, 4, 3, 3}, 83)},
                               a, "Conv image -> buffer", {false, true});
  test::expectOpenClMatchesCpu("Relu", {test::randomTensor({1, 3, 2, maxW + 3}, 84)}, {}, "Relu wide");
}

TEST(OpenClRuntime, DeviceSelection) {
  REQUIRE_OPENCL();
  std::vector<opencl::DeviceInfo> devices;
  ASSERT_TRUE(opencl::enumerateDevices(&devices).isOk());
  opencl::DeviceInfo d;
  EXPECT_TRUE(opencl::chooseDevice(devices, "0", &d).isOk());
  EXPECT_TRUE(opencl::chooseDevice(devices, devices[0].deviceName.substr(0, 4), &d).isOk());
  Status bad = opencl::chooseDevice(devices, "99", &d);
  EXPECT_EQ(bad.code(), StatusCode::kNotFound);
  std::unique_ptr<Backend> b;
  BackendOptions o;
  o.device = "no-such-device-anywhere";
  Status st = BackendRegistry::instance().find(BackendType::kOpenCL)->create(o, &b);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("no-such-device-anywhere"), std::string::npos) << st.message();
}

TEST(OpenClRuntime, Fp16RequestIsHonouredOrExplained) {
  REQUIRE_OPENCL();
  BackendOptions o;
  o.precision = Precision::kFP16;
  auto b = createOpenCl(o);
  auto* cl = static_cast<OpenClBackend*>(b.get());
  if (!cl->device().fp16) {
    EXPECT_FALSE(cl->halfImages());
    EXPECT_NE(cl->precisionNote().find("cl_khr_fp16"), std::string::npos) << cl->precisionNote();
    EXPECT_NE(BackendRegistry::instance().find(BackendType::kOpenCL)->describeDevices().find("fp16"), std::string::npos);
  } else {
    EXPECT_TRUE(cl->halfImages() || !cl->device().images);
  }
}

TEST(OpenClRuntime, EventProfilingGivesPerKernelDeviceTimes) {
  REQUIRE_OPENCL();
  setenv("TESSERA_OPENCL_PROFILE", "1", 1);
  test::OpRun r = test::runOp("Relu", {test::randomTensor({1, 3, 5, 5}, 85)}, {}, 1, BackendType::kOpenCL);
  unsetenv("TESSERA_OPENCL_PROFILE");
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  const auto profile = OpenClBackend::lastRunProfile();
  ASSERT_FALSE(profile.empty());
  bool found = false;
  for (const auto& e : profile) {
    found = found || e.first.find("Relu") != std::string::npos;
    EXPECT_GE(e.second, 0.0);
  }
  EXPECT_TRUE(found) << "no profile entry names the Relu node";
}

// With no OpenCL platform (OCL_ICD_VENDORS at an empty folder), in a child process since the
// ICD loader reads its vendors once: the backend says why it is unavailable, `auto`-style
// placement runs everything on the CPU, and nothing crashes. A loader that ignores the
// variable (one on an H200 machine still listed its platforms) cannot hide them: skipped,
// saying so.
TEST(OpenClNoPlatform, BackendUnavailableAndCpuUsed) {
  if (std::getenv("TESSERA_TEST_NO_OPENCL_CHILD")) {
    cl_uint visible = 0;
    if (clGetPlatformIDs(0, nullptr, &visible) == CL_SUCCESS && visible > 0) {
      std::printf("NO-PLATFORM-CHILD-LOADER-IGNORES-VENDORS %u\n", visible);
      return;
    }
    const BackendFactory* f = BackendRegistry::instance().find(BackendType::kOpenCL);
    ASSERT_NE(f, nullptr);
    std::unique_ptr<Backend> b;
    Status st = f->create(BackendOptions{}, &b);
    ASSERT_FALSE(st.isOk());
    EXPECT_EQ(st.code(), StatusCode::kUnavailable);
    EXPECT_NE(st.message().find("no OpenCL platform"), std::string::npos) << st.message();
    EXPECT_NE(f->describeDevices().find("unavailable"), std::string::npos) << f->describeDevices();
    test::OpRun r = test::runOp("Relu", {test::randomTensor({2, 3}, 86)}, {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk());
    EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
    std::printf("NO-PLATFORM-CHILD-OK\n");
    return;
  }
  char dir[] = "/tmp/tessera-no-icd-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    if (s.rfind("OCL_ICD_VENDORS=", 0) != 0 && s.rfind("OPENCL_VENDOR_PATH=", 0) != 0 &&
        s.rfind("OCL_ICD_FILENAMES=", 0) != 0)
      env.push_back(s);
  }
  env.push_back(std::string("OCL_ICD_VENDORS=") + dir);
  env.push_back("TESSERA_TEST_NO_OPENCL_CHILD=1");
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(&s[0]);
  envp.push_back(nullptr);
  const std::string out = std::string(dir) + "/out.txt";
  std::string exe(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", &exe[0], exe.size());
  ASSERT_GT(n, 0);
  exe.resize(n);
  std::string filter = "--gtest_filter=OpenClNoPlatform.BackendUnavailableAndCpuUsed";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  char* argv[] = {&exe[0], &filter[0], nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, envp.data()), 0);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  std::ifstream f(out);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::system((std::string("rm -rf ") + dir).c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "the child crashed:\n" << text;
  EXPECT_EQ(WEXITSTATUS(status), 0) << text;
  if (text.find("NO-PLATFORM-CHILD-LOADER-IGNORES-VENDORS") != std::string::npos)
    GTEST_SKIP() << "this machine's OpenCL ICD loader lists platforms with OCL_ICD_VENDORS at an empty folder "
                    "(it ignores the variable), so no platform-less process can be arranged:\n"
                 << text;
  EXPECT_NE(text.find("NO-PLATFORM-CHILD-OK"), std::string::npos) << text;
}

}  // namespace
}  // namespace tessera
