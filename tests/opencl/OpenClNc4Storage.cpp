// OpenCL keeps NC4HW4 tensors in images or in buffers (the kernels' -DX_STORAGE=BUFFER
// builds), whichever measured faster on this device (tests/support/Nc4StorageChecks.hpp).
#include "backends/opencl/OpenClBackend.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"
#include "tests/support/Nc4StorageChecks.hpp"

namespace tessera {
namespace test {
namespace {

std::unique_ptr<OpenClBackend> newBackend(Nc4Storage storage) {
  BackendOptions o;
  o.nc4Storage = storage;
  std::unique_ptr<Backend> b;
  EXPECT_TRUE(BackendRegistry::instance().find(BackendType::kOpenCL)->create(o, &b).isOk());
  return std::unique_ptr<OpenClBackend>(static_cast<OpenClBackend*>(b.release()));
}

const Nc4StorageProbe kProbe{"TESSERA_OPENCL_NC4_STORAGE",
                             [](Nc4Storage s) { return newBackend(s)->nc4Storage(); },
                             [] { return newBackend(Nc4Storage::kAuto)->nc4StorageDevice(); }};

TEST(OpenClNc4Storage, MeasuredOnceThenReadFromTheCache) {
  REQUIRE_OPENCL();
  expectMeasuredOnceThenCached(kProbe);
}

TEST(OpenClNc4Storage, ChoiceFollowsTheMeasuredTimes) {
  REQUIRE_OPENCL();
  expectChoiceFollowsTimes(kProbe);
}

TEST(OpenClNc4Storage, OverrideWins) {
  REQUIRE_OPENCL();
  expectOverrideWins(kProbe);
}

}  // namespace
}  // namespace test
}  // namespace tessera
