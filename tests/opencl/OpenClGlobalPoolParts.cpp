// OpenCL global pools split over parts of the plane (global_pool.cl global_pool_partial +
// global_pool_merge, what a GPU runs where the work-groups per channel block are few) against
// the CPU: parts forced from 1 to one per few pixels, odd planes, batch > 1, channels not a
// multiple of 4, a 3-D pool, images and buffers.
#include "support/Nc4StorageChecks.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(OpenClGlobalPoolParts, MatchCpuForEveryPartCount) {
  REQUIRE_OPENCL();
  uint32_t seed = 1;
  for (const char* storage : {"image", "buffer"}) {
    ScopedEnvVar nc4("TESSERA_OPENCL_NC4_STORAGE", storage);
    for (const char* parts : {"1", "2", "7", "64"})
      for (const Shape& shape : {Shape{2, 5, 33, 47}, Shape{1, 24, 160, 160}, Shape{3, 13, 1, 9}, Shape{1, 6, 3, 5, 7}}) {
        ScopedEnvVar split("TESSERA_OPENCL_POOL_PARTS", parts);
        const Tensor x = randomTensor(shape, seed++, -4.f, 4.f);
        const std::string what = std::string(storage) + ", " + parts + " parts, " + shapeToString(shape);
        expectOpenClMatchesCpu("GlobalAveragePool", {x}, {}, what);
        expectOpenClMatchesCpu("GlobalMaxPool", {x}, {}, what);
      }
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
