// fp16 image storage rounds to nearest-even on this device (issue 15): write_imagef may
// truncate when it converts to half (the spec allows it; an NVIDIA driver does). OpenCL's fp16
// mode stores NC4HW4 images as half (plain tensors and buffers stay fp32), so the image probes
// of tests/support/Fp16RoundingProbes.hpp apply: uploads, a kernel's store, weights.
// TESSERA_OPENCL_FP16_STORAGE=force takes that path on devices without cl_khr_fp16.
#include <cstdlib>

#include "backends/opencl/OpenClBackend.hpp"
#include "support/Fp16RoundingProbes.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"
#include "tests/support/Nc4StorageChecks.hpp"  // ScopedEnvVar

namespace tessera {
namespace test {
namespace {

// fp16 storage exists only in images: force them too, whatever this device measures.
struct ForcedFp16Storage {
  ForcedFp16Storage() : images_("TESSERA_OPENCL_NC4_STORAGE", "image") { setenv("TESSERA_OPENCL_FP16_STORAGE", "force", 1); }
  ~ForcedFp16Storage() { unsetenv("TESSERA_OPENCL_FP16_STORAGE"); }
  ScopedEnvVar images_;
};

TEST(OpenClFp16Rounding, ImageStoresRoundToNearestEven) {
  REQUIRE_OPENCL();
  ForcedFp16Storage forced;
  BackendOptions o;
  o.precision = Precision::kFP16;
  std::unique_ptr<Backend> b;
  ASSERT_TRUE(BackendRegistry::instance().find(BackendType::kOpenCL)->create(o, &b).isOk());
  if (!static_cast<OpenClBackend*>(b.get())->halfImages()) GTEST_SKIP() << "no images on this device: no fp16 storage";
  for (const RoundingProbe& p : roundingProbes(false, 0)) expectRoundsToNearestEven(p, BackendType::kOpenCL);
}

}  // namespace
}  // namespace test
}  // namespace tessera
