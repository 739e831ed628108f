// SqueezeExcite (ops/SqueezeExcite.hpp) against a naive reference on every backend, the op
// placed where asked; and its shape errors.
#include <gtest/gtest.h>

#include "ops/SqueezeExcite.hpp"
#include "support/Nc4StorageChecks.hpp"
#include "support/SqueezeExciteCases.hpp"

namespace tessera {
namespace test {
namespace {

// Every case on every backend against the reference, the node placed where asked.
void expectEveryBackendMatches(bool pooledGiven, uint32_t seed) {
  for (const SqueezeExciteCase& c : squeezeExciteCases()) {
    const SqueezeExciteRun r = squeezeExciteRun(c, seed += 10, pooledGiven);
    const Tensor expected = squeezeExciteReference(c, r);
    const std::string what = c.what + (pooledGiven ? "" : ", no pooled input");
    for (BackendType backend : availableBackends()) {
      OpRun run = runOp("SqueezeExcite", r.inputs, r.attrs, 1, backend, r.constant);
      ASSERT_TRUE(run.status.isOk()) << what << ": " << run.status.message();
      for (const auto& n : run.report.nodes) EXPECT_EQ(n.backend, backend) << what;
      expectClose(run.outputs[0], expected, 1e-4, 1e-5, what + " on " + backendTypeName(backend));
    }
  }
}

TEST(SqueezeExciteOp, MatchesTheReferenceOnEveryBackend) { expectEveryBackendMatches(true, 1); }

// Without `pooled` (FuseSqueezeExcite then drops the GlobalAveragePool), X's own channel
// means: planes within one GPU work-group's tile and past it.
TEST(SqueezeExciteOp, PoolsXItselfWithoutAPooledInput) { expectEveryBackendMatches(false, 500); }

TEST(SqueezeExciteOp, ShapeErrorsNameTheInput) {
  const SqueezeExciteCase c = squeezeExciteCases()[0];
  SqueezeExciteRun r = squeezeExciteRun(c, 3);
  r.inputs[4] = randomTensor({13, 4, 1, 1}, 9);  // W2 must be [C, C1, 1, 1] = [13, 3, 1, 1]
  OpRun run = runOp("SqueezeExcite", r.inputs, r.attrs, 1, BackendType::kCPU, r.constant);
  ASSERT_FALSE(run.status.isOk());
  EXPECT_NE(run.status.message().find("'W2'"), std::string::npos) << run.status.message();
  r = squeezeExciteRun(c, 3);
  r.inputs[1] = randomTensor({3, 12, 1, 1}, 9);  // pooled of other channels
  run = runOp("SqueezeExcite", r.inputs, r.attrs, 1, BackendType::kCPU, r.constant);
  ASSERT_FALSE(run.status.isOk());
  EXPECT_NE(run.status.message().find("'pooled'"), std::string::npos) << run.status.message();
  r = squeezeExciteRun(c, 3);
  r.attrs.setFloats("hidden_activation_affine", {2.f, 1.f});  // the gate's may have one, not the hidden
  run = runOp("SqueezeExcite", r.inputs, r.attrs, 1, BackendType::kCPU, r.constant);
  ASSERT_FALSE(run.status.isOk());
  EXPECT_NE(run.status.message().find("hidden_activation_affine"), std::string::npos) << run.status.message();
}

// The GPU kernels' grouping: one channel block a work-group on a GPU, all of them on a CPU
// driver; the variable forces a count (at most every block).
TEST(SqueezeExciteOp, BlocksPerGroupByDevice) {
  ScopedEnvVar unset("TESSERA_SQUEEZE_EXCITE_BLOCKS", nullptr);
  EXPECT_EQ(SqueezeExciteParams::blocksPerGroup(24, false), 1);
  EXPECT_EQ(SqueezeExciteParams::blocksPerGroup(24, true), 24);
  ScopedEnvVar three("TESSERA_SQUEEZE_EXCITE_BLOCKS", "3");
  EXPECT_EQ(SqueezeExciteParams::blocksPerGroup(24, false), 3);
  EXPECT_EQ(SqueezeExciteParams::blocksPerGroup(2, true), 2);
}

// Without a pooled input, the GPU kernels average inside each work-group only on a plane of
// one tile whose reads stay few; else the pool's partial sums come first.
TEST(SqueezeExciteOp, MeansInKernelOnSmallPlanesOnly) {
  EXPECT_TRUE(SqueezeExciteParams::meansInKernel(200, 2 * 96));     // the classifier's last block
  EXPECT_TRUE(SqueezeExciteParams::meansInKernel(96, 20 * 20));     // det 320's 20x20 level
  EXPECT_FALSE(SqueezeExciteParams::meansInKernel(8, 12 * 96));     // past one tile
  EXPECT_FALSE(SqueezeExciteParams::meansInKernel(480, 6 * 80));    // rec: 120 blocks x 480 pixels
  EXPECT_TRUE(SqueezeExciteParams::meansInKernel(64, 1024));        // 16 x 1024: the limit
  EXPECT_FALSE(SqueezeExciteParams::meansInKernel(65, 1024));
}

}  // namespace
}  // namespace test
}  // namespace tessera
