// Custom Vulkan kernels registered at run time (tessera/VulkanKernel.hpp): a custom op
// com.tessera.vktest::BiasTanh, y = alpha * tanh(x) + B[c] with B a constant [C], run by an
// NC4HW4 GLSL kernel (storage images, or NCHW buffers through the same source past the image
// limits) and by a plain kernel without the prelude, both checked against a CPU kernel; fp16
// storage; compile errors; the once-per-plan prepare step. (Under CTest vulkan_validation
// these run with the Khronos validation layer, which must stay silent.)
#include <atomic>

#include "backends/vulkan/VulkanContext.hpp"
#include "tessera/CustomOp.hpp"
#include "tessera/Session.hpp"
#include "tessera/VulkanKernel.hpp"
#include "tests/support/BiasTanhOp.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace {

const char kDomain[] = "com.tessera.vktest";

// One NC4HW4 pixel (4 channels) an invocation; the bias is padded to whole pixels.
const char kNc4Source[] = R"GLSL(#version 450
NC4_IN(0, x);
F32_IN(1, bias);
NC4_OUT(2, y);
void main() {
  uint i = gid();
  if (i >= P[0]) return;
  ivec3 g = ivec3(pint(1), pint(2), pint(3));
  ivec4 p = pixelOf(i, g);
  vec4 b = vec4(bias[p.y * 4], bias[p.y * 4 + 1], bias[p.y * 4 + 2], bias[p.y * 4 + 3]);
  store_y(g, p.x, p.y, p.z, p.w, pfloat(4) * tanh(load_x(g, p.x, p.y, p.z, p.w)) + b);
}
)GLSL";

// No prelude: its own bindings, push constants and 64-wide groups.
const char kPlainSource[] = R"GLSL(#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer B { float bias[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Params { uint count, C, HW; float alpha; };
void main() {
  uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u + gl_GlobalInvocationID.x;
  if (i >= count) return;
  y[i] = alpha * tanh(x[i]) + bias[(i / HW) % C];
}
)GLSL";

// Line 3 uses an undeclared name.
const char kBrokenSource[] = "#version 450\nvoid main() {\n  float v = no_such_symbol;\n}\n";

std::atomic<int> gPrepares{0}, gPlans{0};
std::atomic<int> gImages{-1};  // 1: the last NC4 plan used images, 0: buffers

class Nc4BiasTanh final : public VulkanCustomExecution {
 public:
  Nc4BiasTanh(Backend* b, float alpha, const char* source) : VulkanCustomExecution(b), alpha_(alpha), source_(source) {
    setInputLayouts({Layout::kNC4HW4});
    setOutputLayouts({Layout::kNC4HW4});
    setHostConstantInputs({1});
  }

  Status onPrepare(const Tensors& in, const Tensors&) override {
    ++gPrepares;
    const Tensor* bias = in[1];
    std::vector<float> padded(((bias->elementCount() + 3) / 4) * 4, 0.f);
    for (int64_t c = 0; c < bias->elementCount(); ++c) padded[c] = bias->data<float>()[c];
    TESSERA_RETURN_IF_ERROR(buildPipeline("bias_tanh", source_, {}, &pipeline_));
    return createBuffer(padded.size() * sizeof(float), padded.data(), &bias_);
  }

  Status onPlan(const Tensors& in, const Tensors& out) override {
    ++gPlans;
    gImages = imageStorage() ? 1 : 0;
    const Shape& s = out[0]->shape();
    const int64_t c4 = (s[1] + 3) / 4, pixels = s[0] * c4 * s[2] * s[3];
    VulkanDispatch* d = nullptr;
    TESSERA_RETURN_IF_ERROR(addDispatch(pipeline_, &d));
    d->tensor(in[0]).buffer(bias_).tensor(out[0]);
    d->param(uint32_t(pixels)).param(int32_t(s[1])).param(int32_t(s[2])).param(int32_t(s[3])).param(alpha_);
    d->invocations(pixels);
    return Status::ok();
  }

 private:
  float alpha_;
  const char* source_;
  VulkanPipeline pipeline_;
  VulkanKernelBuffer* bias_ = nullptr;
};

// Misuses of the API, each of which must be a clear planning error.
enum class Misuse { kNoInvocations, kTooManyParams, kHostConstantBound };
class MisusedBiasTanh final : public VulkanCustomExecution {
 public:
  MisusedBiasTanh(Backend* b, Misuse m) : VulkanCustomExecution(b), misuse_(m) { setHostConstantInputs({1}); }
  Status onPlan(const Tensors& in, const Tensors& out) override {
    TESSERA_RETURN_IF_ERROR(buildPipeline("misused", kPlainSource, {}, &pipeline_, false));
    VulkanDispatch* d = nullptr;
    TESSERA_RETURN_IF_ERROR(addDispatch(pipeline_, &d));
    d->tensor(in[0]).tensor(misuse_ == Misuse::kHostConstantBound ? in[1] : in[0]).tensor(out[0]);
    for (int i = 0; i < (misuse_ == Misuse::kTooManyParams ? 33 : 4); ++i) d->param(uint32_t(i));
    if (misuse_ != Misuse::kNoInvocations) d->invocations(out[0]->elementCount());
    return Status::ok();
  }

 private:
  Misuse misuse_;
  VulkanPipeline pipeline_;
};

class PlainBiasTanh final : public VulkanCustomExecution {
 public:
  PlainBiasTanh(Backend* b, float alpha) : VulkanCustomExecution(b), alpha_(alpha) { setHostConstantInputs({1}); }

  Status onPrepare(const Tensors& in, const Tensors&) override {
    TESSERA_RETURN_IF_ERROR(buildPipeline("bias_tanh_plain", kPlainSource, {}, &pipeline_, false));
    return createBuffer(in[1]->byteSize(), in[1]->data(), &bias_);
  }

  Status onPlan(const Tensors& in, const Tensors& out) override {
    const Shape& s = out[0]->shape();
    VulkanDispatch* d = nullptr;
    TESSERA_RETURN_IF_ERROR(addDispatch(pipeline_, &d));
    d->tensor(in[0]).buffer(bias_).tensor(out[0]);
    d->param(uint32_t(out[0]->elementCount())).param(uint32_t(s[1])).param(uint32_t(s[2] * s[3])).param(alpha_);
    d->invocations(out[0]->elementCount());
    return Status::ok();
  }

 private:
  float alpha_;
  VulkanPipeline pipeline_;
  VulkanKernelBuffer* bias_ = nullptr;
};

CustomKernel kernel(BackendType backend, const std::string& provider,
                    std::function<std::unique_ptr<Execution>(Backend*, float)> make) {
  CustomKernel k;
  k.backend = backend;
  k.provider = provider;
  k.domain = kDomain;
  k.opType = "BiasTanh";
  k.dtype = DataType::kF32;
  k.create = [make](Backend* b, const Node& n, const Tensors&, const Tensors&) {
    return make(b, n.attrs.getFloat("alpha", 1.f));
  };
  return k;
}

void registerBiasTanh() {
  static const bool done = [] {
    EXPECT_TRUE(registerCustomOp(kDomain, "BiasTanh", test::biasTanhShape).isOk());
    EXPECT_TRUE(registerCustomKernel(kernel(BackendType::kCPU, "vk_test_cpu", [](Backend* b, float a) {
                  return std::make_unique<test::CpuBiasTanh>(b, a);
                })).isOk());
    EXPECT_TRUE(registerCustomKernel(kernel(BackendType::kVulkan, "vk_test_nc4", [](Backend* b, float a) {
                  return std::make_unique<Nc4BiasTanh>(b, a, kNc4Source);
                })).isOk());
    EXPECT_TRUE(registerCustomKernel(kernel(BackendType::kVulkan, "vk_test_plain", [](Backend* b, float a) {
                  return std::make_unique<PlainBiasTanh>(b, a);
                })).isOk());
    EXPECT_TRUE(registerCustomKernel(kernel(BackendType::kVulkan, "vk_test_broken", [](Backend* b, float a) {
                  return std::make_unique<Nc4BiasTanh>(b, a, kBrokenSource);
                })).isOk());
    for (auto m : {std::make_pair("vk_test_noinv", Misuse::kNoInvocations),
                   std::make_pair("vk_test_params", Misuse::kTooManyParams),
                   std::make_pair("vk_test_hostbound", Misuse::kHostConstantBound)}) {
      const Misuse misuse = m.second;
      EXPECT_TRUE(registerCustomKernel(kernel(BackendType::kVulkan, m.first, [misuse](Backend* b, float) {
                    return std::make_unique<MisusedBiasTanh>(b, misuse);
                  })).isOk());
    }
    // A Vulkan kernel class returned for the CPU backend: an error, not a crash.
    EXPECT_TRUE(registerCustomKernel(kernel(BackendType::kCPU, "vk_test_wrong_backend", [](Backend* b, float a) {
                  return std::make_unique<Nc4BiasTanh>(b, a, kNc4Source);
                })).isOk());
    return true;
  }();
  (void)done;
}

std::shared_ptr<Graph> biasTanhGraph(int64_t channels) { return test::biasTanhGraph(kDomain, "BiasTanh", channels); }
using Ran = test::BiasTanhRun;
Ran run(std::shared_ptr<Graph> g, BackendType backend, const std::string& provider, const Tensor& x,
        Precision precision = Precision::kFP32, Nc4Storage storage = Nc4Storage::kAuto) {
  return test::runBiasTanh(std::move(g), backend, provider, x, precision, storage);
}

void expectMatchesCpu(const std::string& provider, const Shape& shape, Precision precision = Precision::kFP32,
                      double rtol = 1e-4, double atol = 1e-5, Nc4Storage storage = Nc4Storage::kAuto) {
  const std::string what = provider + " " + shapeToString(shape);
  auto g = biasTanhGraph(shape[1]);
  const Tensor x = test::randomTensor(shape, 11, -2.f, 2.f);
  Ran cpu = run(g, BackendType::kCPU, "vk_test_cpu", x);
  Ran vk = run(g, BackendType::kVulkan, provider, x, precision, storage);
  ASSERT_TRUE(cpu.status.isOk()) << what << ": " << cpu.status.message();
  ASSERT_TRUE(vk.status.isOk()) << what << ": " << vk.status.message();
  ASSERT_EQ(vk.report.nodes.size(), 1u);
  EXPECT_EQ(vk.report.nodes[0].backend, BackendType::kVulkan) << what << ": fell back";
  for (const std::string& c : vk.report.conversions)
    EXPECT_EQ(c.find("'B'"), std::string::npos) << what << ": the host constant was uploaded: " << c;
  test::expectClose(vk.y, cpu.y, rtol, atol, what);
}

TEST(VulkanCustomKernel, Nc4KernelOnImagesMatchesCpu) {
  TESSERA_REQUIRE_VULKAN();
  registerBiasTanh();
  for (const Shape& s : {Shape{2, 5, 3, 7}, Shape{1, 13, 1, 5}, Shape{3, 3, 5, 1}}) {
    gImages = -1;
    expectMatchesCpu("vk_test_nc4", s, Precision::kFP32, 1e-4, 1e-5, Nc4Storage::kImage);
    EXPECT_EQ(gImages.load(), 1) << shapeToString(s) << ": the kernel did not get storage images";
  }
  // fp16 storage: rgba16f images, the same source.
  expectMatchesCpu("vk_test_nc4", {2, 5, 3, 7}, Precision::kFP16, 1e-2, 1e-2, Nc4Storage::kImage);
}

TEST(VulkanCustomKernel, SameSourceOnBuffersPastTheImageLimitAndPlainKernel) {
  TESSERA_REQUIRE_VULKAN();
  registerBiasTanh();
  gImages = -1;
  // One 4-channel block wider than the device's largest image (16384 on lavapipe, 32768 on
  // an H100).
  std::shared_ptr<VulkanContext> ctx;
  ASSERT_TRUE(VulkanContext::get("", &ctx).isOk());
  expectMatchesCpu("vk_test_nc4", {1, 3, 1, static_cast<int64_t>(ctx->info().limits.maxImageDimension2D) + 100});
  EXPECT_EQ(gImages.load(), 0) << "a tensor past the image limits should be an NCHW buffer";
  expectMatchesCpu("vk_test_plain", {2, 5, 3, 7});
  expectMatchesCpu("vk_test_plain", {1, 13, 1, 5});
}

TEST(VulkanCustomKernel, CompileErrorIsAStatusWithGlslangsLog) {
  TESSERA_REQUIRE_VULKAN();
  registerBiasTanh();
  Ran r = run(biasTanhGraph(5), BackendType::kVulkan, "vk_test_broken", test::randomTensor({2, 5, 3, 7}, 3));
  ASSERT_FALSE(r.status.isOk());
  const std::string& m = r.status.message();
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << m;
  EXPECT_NE(m.find("BiasTanh 'n'"), std::string::npos) << m;
  EXPECT_NE(m.find("'bias_tanh' does not compile"), std::string::npos) << m;
  EXPECT_NE(m.find("no_such_symbol"), std::string::npos) << "no glslang log: " << m;
  EXPECT_NE(m.find(":3:"), std::string::npos) << "log lines should count from the user's source: " << m;
}

TEST(VulkanCustomKernel, MisusesAreClearErrors) {
  TESSERA_REQUIRE_VULKAN();
  registerBiasTanh();
  const Tensor x = test::randomTensor({1, 5, 2, 3}, 8);
  const std::pair<const char*, const char*> cases[] = {
      {"vk_test_noinv", "has no invocation count"},
      {"vk_test_params", "33 parameters (at most 32)"},
      {"vk_test_hostbound", "'B' is not on the Vulkan device"},
  };
  for (const auto& c : cases) {
    Ran r = run(biasTanhGraph(5), BackendType::kVulkan, c.first, x);
    ASSERT_FALSE(r.status.isOk()) << c.first;
    EXPECT_NE(r.status.message().find(c.second), std::string::npos) << c.first << ": " << r.status.message();
    EXPECT_NE(r.status.message().find("BiasTanh 'n'"), std::string::npos) << r.status.message();
  }
  Ran r = run(biasTanhGraph(5), BackendType::kCPU, "vk_test_wrong_backend", x);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("custom Vulkan execution created on the cpu backend"), std::string::npos)
      << r.status.message();
}

TEST(VulkanCustomKernel, DuplicateRegistrationIsAnError) {
  registerBiasTanh();
  Status st = registerCustomKernel(kernel(BackendType::kVulkan, "vk_test_nc4", [](Backend* b, float a) {
    return std::make_unique<Nc4BiasTanh>(b, a, kNc4Source);
  }));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("already registered"), std::string::npos) << st.message();
}

TEST(VulkanCustomKernel, PrepareRunsOncePerPlanNotPerRun) {
  TESSERA_REQUIRE_VULKAN();
  registerBiasTanh();
  SessionOptions o;
  o.backends = {BackendType::kVulkan};
  o.providers = {"vk_test_nc4"};
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(biasTanhGraph(5), o, &s).isOk());
  gPrepares = 0;
  gPlans = 0;
  for (int i = 0; i < 3; ++i) {
    std::map<std::string, Tensor> out;
    const Tensor x = test::randomTensor({2, 5, 3, 7}, 20 + i);
    ASSERT_TRUE(s->run({{"x", x}}, &out).isOk());
    Ran cpu = run(biasTanhGraph(5), BackendType::kCPU, "vk_test_cpu", x);
    test::expectClose(out["y"], cpu.y, 1e-4, 1e-5, "run " + std::to_string(i));
  }
  EXPECT_EQ(gPrepares.load(), 1);
  EXPECT_EQ(gPlans.load(), 1);
}

}  // namespace
}  // namespace tessera
