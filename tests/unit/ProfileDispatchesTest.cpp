// A Session's profile counts the GPU dispatches each step issued (Vulkan vkCmdDispatch
// recorded, OpenCL kernels enqueued: Backend::recordedDispatches / enqueuedDispatches), on a
// graph whose count is known: a Conv with a fused Relu is one dispatch on each GPU backend,
// a separate Relu one more, and the upload and download each one layout conversion (host
// NCHW <-> NC4HW4). CPU steps count none (-1). The counts hold for a plan kept and reused.
#include <gtest/gtest.h>

#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {
namespace {

// x [n, 3, 8, 8] -> Conv 3x3 (pads 1, fused Relu) -> Relu -> y
std::shared_ptr<Graph> convGraph() {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {-1, 3, 8, 8});
  Attributes conv;
  conv.setInts("pads", {1, 1, 1, 1});
  conv.setString("activation", "Relu");
  const std::string c = gb.op1("Conv", {x, gb.constant("w", randomTensor({4, 3, 3, 3}, 1)),
                                        gb.constant("b", randomTensor({4}, 2))}, conv);
  gb.output(gb.op1("Relu", {c}));
  std::shared_ptr<Graph> g;
  EXPECT_TRUE(gb.build(&g).isOk());
  return g;
}

TEST(ProfileDispatches, ConvWithFusedActivationIsOneDispatch) {
  for (BackendType b : availableBackends()) {
    const std::string where = backendTypeName(b);
    SessionOptions o;
    o.backends = {b};
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(convGraph(), o, &s).isOk()) << where;
    ASSERT_TRUE(s->setProfiling(true).isOk());
    // Batch 1, 2, then 1 again: the third run reuses the first plan.
    for (int64_t n : {1, 2, 1}) {
      std::map<std::string, Tensor> outs;
      const Status st = s->run({{"x", randomTensor({n, 3, 8, 8}, 3)}}, &outs);
      ASSERT_TRUE(st.isOk()) << where << ": " << st.message();
      std::map<std::string, int64_t> byOp;  // "" for copies
      int64_t total = 0;
      for (const auto& e : s->profile()) {
        const std::string step = where + " batch " + std::to_string(n) + ": " + e.step;
        if (b == BackendType::kCPU || e.backend == BackendType::kCPU || e.step.rfind("segment ", 0) == 0) {
          EXPECT_EQ(e.dispatches, -1) << step;
          continue;
        }
        ASSERT_EQ(e.backend, b) << step;
        ASSERT_GE(e.dispatches, 0) << step;
        byOp[e.opType] += e.dispatches;
        total += e.dispatches;
      }
      if (b == BackendType::kCPU) continue;
      EXPECT_EQ(byOp["Conv"], 1) << where << " batch " << n;
      EXPECT_EQ(byOp["Relu"], 1) << where << " batch " << n;
      EXPECT_EQ(byOp[""], 2) << where << " batch " << n << ": one conversion in, one out";
      EXPECT_EQ(total, 4) << where << " batch " << n;
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
