// The conformance harness counts an OpenCL pass only when the OpenCL kernel ran: a 1-D
// Split whose `split` sizes are a graph input (ONNX test_split_variable_parts_1d) runs on
// OpenCL with its data input a run-time tensor, not folded on the CPU at planning, so a
// deliberately broken OpenCL Split kernel makes the case FAIL.
#include "tessera/OpenClKernel.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"
#include "tests/support/NodeCase.hpp"
#include "tests/support/TestKernels.hpp"

namespace tessera {
namespace {

const char kCase[] = "test_split_variable_parts_1d";
const char kProvider[] = "test_broken_split";

// Broken on purpose: every output copies the start of x, ignoring where its part begins.
const char kBrokenSplit[] = R"CL(
__kernel void broken_split(__global const float* x, __global float* y, int count) {
  const int i = get_global_id(0);
  if (i < count) y[i] = x[i];
}
)CL";

class BrokenSplit final : public OpenClCustomExecution {
 public:
  explicit BrokenSplit(Backend* b) : OpenClCustomExecution(b) { setHostConstantInputs({1}); }

  Status onPrepare(const Tensors&, const Tensors&) override {
    return buildProgram("broken_split", kBrokenSplit, {}, &program_, false);
  }

  Status onPlan(const Tensors& in, const Tensors& out) override {
    for (const Tensor* y : out) {
      OpenClKernel* k = nullptr;
      TESSERA_RETURN_IF_ERROR(addKernel(program_, "broken_split", &k));
      k->tensor(in[0]).tensor(y).arg(int32_t(y->elementCount()));
      TESSERA_RETURN_IF_ERROR(k->setWorkSize({y->elementCount()}));
    }
    return Status::ok();
  }

 private:
  OpenClProgram program_;
};

TEST(OpenClConformanceHonesty, OneDimensionalSplitRunsOnOpenCl) {
  REQUIRE_OPENCL();
  const cli::CaseResult r = test::runOnnxNodeCase(kCase, BackendType::kOpenCL);
  ASSERT_EQ(r.status, "PASS") << r.reason;
  test::expectEveryNodeRanOn(r, BackendType::kOpenCL, kCase);
}

TEST(OpenClConformanceHonesty, BrokenKernelFailsTheOneDimensionalCase) {
  REQUIRE_OPENCL();
  ASSERT_TRUE(test::registerTestKernel<BrokenSplit>(BackendType::kOpenCL, kProvider, "Split"));
  const cli::CaseResult r = test::runOnnxNodeCase(kCase, BackendType::kOpenCL, kProvider);
  EXPECT_EQ(r.status, "FAIL") << "a broken OpenCL Split kernel passed " << kCase;
  // Caught by comparing the outputs, not by a planning error.
  EXPECT_GT(r.maxAbsErr, 1.0) << r.reason;
  test::expectEveryNodeRanOn(r, BackendType::kOpenCL, kCase);
}

}  // namespace
}  // namespace tessera
