// An OpenCL Relu made wrong by 1e-3 (a custom-kernel provider) is named by findDivergence
// against the CPU's trace.
#include "tessera/OpenClKernel.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"
#include "tests/support/OpTest.hpp"
#include "tests/support/TestKernels.hpp"
#include "tests/support/TraceGraph.hpp"

namespace tessera {
namespace {

const char kPerturbedRelu[] = R"CL(
__kernel void perturbed_relu(__global const float* x, __global float* y, int count, float delta) {
  const int i = get_global_id(0);
  if (i < count) y[i] = fmax(x[i], 0.0f) + delta;
}
)CL";

class OpenClPerturbedRelu final : public OpenClCustomExecution {
 public:
  using OpenClCustomExecution::OpenClCustomExecution;
  Status onPrepare(const Tensors&, const Tensors&) override {
    return buildProgram("perturbed_relu", kPerturbedRelu, {}, &program_, false);
  }
  Status onPlan(const Tensors& in, const Tensors& out) override {
    OpenClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(program_, "perturbed_relu", &k));
    k->tensor(in[0]).tensor(out[0]).arg(int32_t(out[0]->elementCount())).arg(test::kPerturbation);
    return k->setWorkSize({out[0]->elementCount()});
  }

 private:
  OpenClProgram program_;
};

TEST(OpenClDivergence, PerturbedKernelIsFound) {
  REQUIRE_OPENCL();
  ASSERT_TRUE(test::registerTestKernel<OpenClPerturbedRelu>(BackendType::kOpenCL, test::perturbedProvider(), "Relu"));
  test::expectPerturbedReluFound(BackendType::kOpenCL, test::randomTensor({2, 3, 5, 7}, 9));
}

}  // namespace
}  // namespace tessera
