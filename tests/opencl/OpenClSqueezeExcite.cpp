// OpenCL SqueezeExcite (shaders/opencl/squeeze_excite.cl) against the CPU: images and
// buffers, one channel block a work-group (what a GPU runs) and all of them (what a CPU
// driver runs).
#include "support/Nc4StorageChecks.hpp"
#include "support/SqueezeExciteCases.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(OpenClSqueezeExcite, MatchesCpuInImagesAndBuffersAndBothGroupings) {
  REQUIRE_OPENCL();
  for (const char* storage : {"image", "buffer"})
    for (const char* blocks : {"1", "3", "1024"}) {
      ScopedEnvVar nc4("TESSERA_OPENCL_NC4_STORAGE", storage);
      ScopedEnvVar grouping("TESSERA_SQUEEZE_EXCITE_BLOCKS", blocks);
      uint32_t seed = 1;
      for (const SqueezeExciteCase& c : squeezeExciteCases()) {
        const SqueezeExciteRun r = squeezeExciteRun(c, seed += 10);
        expectOpenClMatchesCpu("SqueezeExcite", r.inputs, r.attrs,
                               c.what + " (" + storage + ", blocks a group " + blocks + ")", r.constant);
      }
    }
}

// Without `pooled`: the kernel's own means (planes of one tile) or global_pool_partial's parts
// added by the kernel (the case past a tile), with 1 and 3 parts, in both storages.
TEST(OpenClSqueezeExcite, WithoutPooledInImagesAndBuffersAndParts) {
  REQUIRE_OPENCL();
  for (const char* storage : {"image", "buffer"})
    for (const char* parts : {"1", "3"}) {
      ScopedEnvVar nc4("TESSERA_OPENCL_NC4_STORAGE", storage);
      ScopedEnvVar split("TESSERA_OPENCL_POOL_PARTS", parts);
      ScopedEnvVar grouping("TESSERA_SQUEEZE_EXCITE_BLOCKS", "1");
      uint32_t seed = 700;
      for (const SqueezeExciteCase& c : squeezeExciteCases()) {
        const SqueezeExciteRun r = squeezeExciteRun(c, seed += 10, false);
        expectOpenClMatchesCpu("SqueezeExcite", r.inputs, r.attrs,
                               c.what + ", no pooled (" + storage + ", pool parts " + parts + ")", r.constant);
      }
    }
}

}  // namespace
}  // namespace test
}  // namespace tessera
