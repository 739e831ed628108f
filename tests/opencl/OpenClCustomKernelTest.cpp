// Custom OpenCL kernels registered at run time (tessera/OpenClKernel.hpp): a custom op
// com.tessera.test::BiasTanh, y = alpha * tanh(x) + B[c] with B a constant [C], run by an
// NC4HW4 kernel (images, or buffers through the same source) and by a plain NCHW kernel,
// both checked against a CPU kernel; build errors, duplicate registrations, missing shape
// functions and the once-per-plan prepare step.
#include <atomic>
#include <cstdlib>

#include "backends/opencl/OpenClBackend.hpp"
#include "tessera/OpenClKernel.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"
#include "tests/support/BiasTanhOp.hpp"
#include "tests/support/Nc4StorageChecks.hpp"  // ScopedEnvVar

namespace tessera {
namespace {

const char kDomain[] = "com.tessera.test";

// Channel c of an NC4HW4 pixel column px is in the float4 bias[px / W], lane c % 4.
const char kNc4Source[] = R"CL(
__kernel void bias_tanh(NC4_IN(x), __global const float4* bias, NC4_OUT(y), int width, int height,
                        int W, float alpha) {
  const int px = get_global_id(0), py = get_global_id(1);
  if (px >= width || py >= height) return;
  const float4 v = LOAD4(x, px, py, width);
  STORE4(y, px, py, width, alpha * tanh(v) + bias[px / W]);
}
)CL";

const char kPlainSource[] = R"CL(
__kernel void bias_tanh_plain(__global const float* x, __global const float* bias, __global float* y,
                              int count, int C, int HW, float alpha) {
  const int i = get_global_id(0);
  if (i >= count) return;
  y[i] = alpha * tanh(x[i]) + bias[(i / HW) % C];
}
)CL";

// Line 2 of this source uses an undeclared name.
const char kBrokenSource[] = "__kernel void bias_tanh(__global float* y) {\n  y[0] = no_such_symbol;\n}\n";

std::atomic<int> gPrepares{0}, gPlans{0};
std::atomic<bool> gSawImages{false};

// The NC4HW4 kernel: bias packed to float4 per channel quad and uploaded once, in onPrepare.
class Nc4BiasTanh final : public OpenClCustomExecution {
 public:
  Nc4BiasTanh(Backend* b, float alpha, const char* source) : OpenClCustomExecution(b), alpha_(alpha), source_(source) {
    setInputLayouts({Layout::kNC4HW4});
    setOutputLayouts({Layout::kNC4HW4});
    setHostConstantInputs({1});
  }

  Status onPrepare(const Tensors& in, const Tensors&) override {
    ++gPrepares;
    const Tensor* bias = in[1];
    std::vector<float> packed(((bias->elementCount() + 3) / 4) * 4, 0.f);  // padding lanes stay 0
    for (int64_t c = 0; c < bias->elementCount(); ++c) packed[c] = bias->data<float>()[c];
    return createBuffer(packed.size() * sizeof(float), packed.data(), &bias_);
  }

  Status onPlan(const Tensors& in, const Tensors& out) override {
    ++gPlans;
    gSawImages = isImage(in[0]) && isImage(out[0]);
    OpenClProgram program;
    TESSERA_RETURN_IF_ERROR(buildProgram("bias_tanh", source_,
                                         OpenClBuildOptions().storage("x", in[0]).storage("y", out[0]), &program));
    OpenClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(program, "bias_tanh", &k));
    const Nc4Geometry g = nc4Geometry(out[0]->shape());
    k->tensor(in[0]).buffer(bias_).tensor(out[0]);
    k->arg(int32_t(g.width())).arg(int32_t(g.height())).arg(int32_t(g.w)).arg(alpha_);
    return k->setWorkSize({g.width(), g.height()}, {4, 2});
  }

 private:
  float alpha_;
  const char* source_;
  OpenClBuffer* bias_ = nullptr;
};

// The plain kernel: NCHW buffers, the bias uploaded as it is, no prelude.
class PlainBiasTanh final : public OpenClCustomExecution {
 public:
  PlainBiasTanh(Backend* b, float alpha) : OpenClCustomExecution(b), alpha_(alpha) { setHostConstantInputs({1}); }

  Status onPrepare(const Tensors& in, const Tensors&) override {
    ++gPrepares;
    TESSERA_RETURN_IF_ERROR(buildProgram("bias_tanh_plain", kPlainSource, {}, &program_, false));
    return createBuffer(in[1]->byteSize(), in[1]->data(), &bias_);
  }

  Status onPlan(const Tensors& in, const Tensors& out) override {
    ++gPlans;
    OpenClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(program_, "bias_tanh_plain", &k));
    const Shape& s = out[0]->shape();
    k->tensor(in[0]).buffer(bias_).tensor(out[0]);
    k->arg(int32_t(out[0]->elementCount())).arg(int32_t(s[1])).arg(int32_t(s[2] * s[3])).arg(alpha_);
    return k->setWorkSize({out[0]->elementCount()}, {16});
  }

 private:
  float alpha_;
  OpenClProgram program_;
  OpenClBuffer* bias_ = nullptr;
};

CustomKernel kernel(BackendType backend, const std::string& provider, const std::string& op,
                    std::function<std::unique_ptr<Execution>(Backend*, float)> make) {
  CustomKernel k;
  k.backend = backend;
  k.provider = provider;
  k.domain = kDomain;
  k.opType = op;
  k.dtype = DataType::kF32;
  k.create = [make](Backend* b, const Node& n, const Tensors&, const Tensors&) {
    return make(b, n.attrs.getFloat("alpha", 1.f));
  };
  return k;
}

// Registered once per process (the test binary may run every test in one process).
void registerBiasTanh() {
  static const bool done = [] {
    EXPECT_TRUE(registerCustomOp(kDomain, "BiasTanh", test::biasTanhShape).isOk());
    EXPECT_TRUE(registerCustomKernel(kernel(BackendType::kCPU, "test_cpu", "BiasTanh", [](Backend* b, float a) {
                  return std::make_unique<test::CpuBiasTanh>(b, a);
                })).isOk());
    EXPECT_TRUE(registerCustomKernel(kernel(BackendType::kOpenCL, "test_nc4", "BiasTanh", [](Backend* b, float a) {
                  return std::make_unique<Nc4BiasTanh>(b, a, kNc4Source);
                })).isOk());
    EXPECT_TRUE(registerCustomKernel(kernel(BackendType::kOpenCL, "test_plain", "BiasTanh", [](Backend* b, float a) {
                  return std::make_unique<PlainBiasTanh>(b, a);
                })).isOk());
    EXPECT_TRUE(registerCustomKernel(kernel(BackendType::kOpenCL, "test_broken", "BiasTanh", [](Backend* b, float a) {
                  return std::make_unique<Nc4BiasTanh>(b, a, kBrokenSource);
                })).isOk());
    return true;
  }();
  (void)done;
}

std::shared_ptr<Graph> biasTanhGraph(const std::string& op, int64_t channels, bool constantBias = true) {
  return test::biasTanhGraph(kDomain, op, channels, constantBias);
}
using Ran = test::BiasTanhRun;
Ran run(std::shared_ptr<Graph> g, BackendType backend, const std::string& provider, const Tensor& x,
        Nc4Storage storage = Nc4Storage::kAuto) {
  return test::runBiasTanh(std::move(g), backend, provider, x, Precision::kFP32, storage);
}

// OpenCL with `provider` against the CPU kernel, asserting the op ran on OpenCL.
void expectMatchesCpu(const std::string& provider, const Shape& shape, Nc4Storage storage = Nc4Storage::kAuto) {
  const std::string what = provider + " " + shapeToString(shape);
  auto g = biasTanhGraph("BiasTanh", shape[1]);
  const Tensor x = test::randomTensor(shape, 11, -2.f, 2.f);
  Ran cpu = run(g, BackendType::kCPU, "test_cpu", x);
  Ran cl = run(g, BackendType::kOpenCL, provider, x, storage);
  ASSERT_TRUE(cpu.status.isOk()) << what << ": " << cpu.status.message();
  ASSERT_TRUE(cl.status.isOk()) << what << ": " << cl.status.message();
  ASSERT_EQ(cl.report.nodes.size(), 1u);
  EXPECT_EQ(cl.report.nodes[0].backend, BackendType::kOpenCL) << what << ": fell back";
  for (const std::string& c : cl.report.conversions)
    EXPECT_EQ(c.find("'B'"), std::string::npos) << what << ": the host constant was uploaded: " << c;
  test::expectClose(cl.y, cpu.y, 1e-4, 1e-5, what);
}

TEST(OpenClCustomKernel, Nc4KernelOnImagesMatchesCpu) {
  REQUIRE_OPENCL();
  registerBiasTanh();
  for (const Shape& s : {Shape{2, 5, 3, 7}, Shape{1, 13, 1, 5}, Shape{3, 3, 5, 1}}) {
    gSawImages = false;
    expectMatchesCpu("test_nc4", s, Nc4Storage::kImage);
    EXPECT_TRUE(gSawImages) << shapeToString(s) << ": the kernel did not get images";
  }
}

TEST(OpenClCustomKernel, SameSourceOnNc4BuffersAndPlainKernelMatchCpu) {
  REQUIRE_OPENCL();
  registerBiasTanh();
  {
    test::ScopedEnvVar buffers("TESSERA_OPENCL_NC4_STORAGE", "buffer");  // read when the backend is created
    gSawImages = true;
    expectMatchesCpu("test_nc4", {2, 5, 3, 7});
    EXPECT_FALSE(gSawImages) << "NC4HW4 tensors were images despite TESSERA_OPENCL_NC4_STORAGE=buffer";
  }
  expectMatchesCpu("test_plain", {2, 5, 3, 7});
  expectMatchesCpu("test_plain", {1, 13, 1, 5});
}

TEST(OpenClCustomKernel, BuildErrorIsAStatusWithTheBuildLog) {
  REQUIRE_OPENCL();
  registerBiasTanh();
  Ran r = run(biasTanhGraph("BiasTanh", 5), BackendType::kOpenCL, "test_broken", test::randomTensor({2, 5, 3, 7}, 3));
  ASSERT_FALSE(r.status.isOk());
  const std::string& m = r.status.message();
  EXPECT_NE(m.find("BiasTanh 'n'"), std::string::npos) << m;
  EXPECT_NE(m.find("failed to build"), std::string::npos) << m;
  EXPECT_NE(m.find("no_such_symbol"), std::string::npos) << "no build log: " << m;
  EXPECT_NE(m.find(":2:"), std::string::npos) << "log lines should count from the user's source: " << m;

  // The helper on its own, outside a session, and on a backend that is not OpenCL.
  std::unique_ptr<Backend> b;
  ASSERT_TRUE(BackendRegistry::instance().find(BackendType::kOpenCL)->create(BackendOptions{}, &b).isOk());
  OpenClProgram p;
  Status st = buildOpenClProgram(b.get(), "broken", kBrokenSource, {}, &p);
  EXPECT_NE(st.message().find("no_such_symbol"), std::string::npos) << st.message();
  EXPECT_EQ(p.native(), nullptr);
  std::unique_ptr<Backend> cpu;
  ASSERT_TRUE(BackendRegistry::instance().find(BackendType::kCPU)->create(BackendOptions{}, &cpu).isOk());
  st = buildOpenClProgram(cpu.get(), "plain", kPlainSource, {}, &p);
  EXPECT_NE(st.message().find("needs the OpenCL backend"), std::string::npos) << st.message();
}

TEST(OpenClCustomKernel, ProgramsAreCachedPerSourceAndOptions) {
  REQUIRE_OPENCL();
  std::unique_ptr<Backend> b;
  ASSERT_TRUE(BackendRegistry::instance().find(BackendType::kOpenCL)->create(BackendOptions{}, &b).isOk());
  auto& cache = static_cast<OpenClBackend*>(b.get())->runtime().programs();
  OpenClProgram p1, p2, p3;
  ASSERT_TRUE(buildOpenClProgram(b.get(), "cached", kPlainSource, OpenClBuildOptions().define("X", 1), &p1).isOk());
  const int hits = cache.stats().memoryHits;
  ASSERT_TRUE(buildOpenClProgram(b.get(), "cached", kPlainSource, OpenClBuildOptions().define("X", 1), &p2).isOk());
  EXPECT_EQ(cache.stats().memoryHits, hits + 1);
  EXPECT_EQ(p1.native(), p2.native());
  ASSERT_TRUE(buildOpenClProgram(b.get(), "cached", kPlainSource, OpenClBuildOptions().define("X", 2), &p3).isOk());
  EXPECT_NE(p1.native(), p3.native());
}

TEST(OpenClCustomKernel, DuplicateRegistrationIsAnError) {
  registerBiasTanh();
  Status st = registerCustomKernel(kernel(BackendType::kOpenCL, "test_nc4", "BiasTanh", [](Backend* b, float a) {
    return std::make_unique<Nc4BiasTanh>(b, a, kNc4Source);
  }));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("opencl kernel 'test_nc4' for com.tessera.test::BiasTanh (f32) is already registered"),
            std::string::npos)
      << st.message();
}

TEST(OpenClCustomKernel, CustomOpWithoutShapeFunctionIsAnError) {
  REQUIRE_OPENCL();
  Status st = registerCustomOp(kDomain, "NoShape", nullptr);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("no shape function"), std::string::npos) << st.message();
  // An OpenCL kernel for an op type nobody gave a shape function: a clear error at planning.
  static const bool registered =
      registerCustomKernel(kernel(BackendType::kOpenCL, "test_noshape", "NoShape", [](Backend* b, float a) {
        return std::make_unique<PlainBiasTanh>(b, a);
      })).isOk();
  ASSERT_TRUE(registered);
  Ran r = run(biasTanhGraph("NoShape", 5), BackendType::kOpenCL, "test_noshape", test::randomTensor({1, 5, 2, 2}, 4));
  EXPECT_EQ(r.status.code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status.message().find("NoShape 'n': op 'NoShape' (domain 'com.tessera.test')"), std::string::npos)
      << r.status.message();
}

TEST(OpenClCustomKernel, PrepareRunsOncePerPlanNotPerRun) {
  REQUIRE_OPENCL();
  registerBiasTanh();
  SessionOptions o;
  o.backends = {BackendType::kOpenCL};
  o.providers = {"test_nc4"};
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(biasTanhGraph("BiasTanh", 5), o, &s).isOk());
  gPrepares = 0;
  gPlans = 0;
  Tensor last;
  for (int i = 0; i < 3; ++i) {
    std::map<std::string, Tensor> out;
    const Tensor x = test::randomTensor({2, 5, 3, 7}, 20 + i);
    ASSERT_TRUE(s->run({{"x", x}}, &out).isOk());
    Ran cpu = run(biasTanhGraph("BiasTanh", 5), BackendType::kCPU, "test_cpu", x);
    test::expectClose(out["y"], cpu.y, 1e-4, 1e-5, "run " + std::to_string(i));
  }
  EXPECT_EQ(gPrepares.load(), 1);
  EXPECT_EQ(gPlans.load(), 1);
  // New input shapes make a new plan, with new executions: prepared again.
  std::map<std::string, Tensor> out;
  ASSERT_TRUE(s->run({{"x", test::randomTensor({1, 5, 4, 4}, 30)}}, &out).isOk());
  EXPECT_EQ(gPrepares.load(), 2);
  EXPECT_EQ(gPlans.load(), 2);
}

TEST(OpenClCustomKernel, HostConstantInputThatIsNotConstantIsAnError) {
  REQUIRE_OPENCL();
  registerBiasTanh();
  SessionOptions o;
  o.backends = {BackendType::kOpenCL};
  o.providers = {"test_nc4"};
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(biasTanhGraph("BiasTanh", 5, false), o, &s).isOk());
  std::map<std::string, Tensor> out;
  Status st = s->run({{"x", test::randomTensor({1, 5, 2, 3}, 5)}, {"B", test::randomTensor({5}, 6)}}, &out);
  EXPECT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_NE(st.message().find("input 1 'B' must be a constant"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace tessera
