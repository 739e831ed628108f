// The Vulkan runtime: device listing and selection, whole-graph runs with layout
// conversions, re-planning on new shapes, the pipeline cache on disk, GPU profiling, and
// the validation layer (enabled by TESSERA_VULKAN_VALIDATION=1 in the CTest that runs
// these suites with it).

#include <fstream>

#include "backends/vulkan/VulkanDiagnostics.hpp"
#include "support/Nc4StorageChecks.hpp"  // ScopedEnvVar
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanRuntime, DescribesDevicesOrWhyNot) {
  const BackendFactory* f = BackendRegistry::instance().find(BackendType::kVulkan);
  ASSERT_NE(f, nullptr);
  const std::string text = f->describeDevices();
  EXPECT_FALSE(text.empty());
  if (vulkanUnavailableReason().empty()) EXPECT_NE(text.find("[0]"), std::string::npos) << text;
}

TEST(VulkanRuntime, DeviceSelectionByIndexNameAndError) {
  TESSERA_REQUIRE_VULKAN();
  const BackendFactory* f = BackendRegistry::instance().find(BackendType::kVulkan);
  std::unique_ptr<Backend> b;
  BackendOptions o;
  o.device = "0";
  ASSERT_TRUE(f->create(o, &b).isOk());
  const std::string name = b->deviceName();
  o.device = name.substr(0, 4);  // a name substring, any case
  ASSERT_TRUE(f->create(o, &b).isOk());
  EXPECT_EQ(b->deviceName(), name);
  o.device = "no-such-device-xyz";
  Status st = f->create(o, &b);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("no-such-device-xyz"), std::string::npos) << st.message();
  o.device = "99";
  EXPECT_FALSE(f->create(o, &b).isOk());
}

// A chain that keeps data on the GPU, fed by a CPU op in NC4HW4 (GPU-side layout
// conversion) and re-planned for a second input shape (commands re-recorded).
TEST(VulkanRuntime, ChainAcrossBackendsAndReplan) {
  TESSERA_REQUIRE_VULKAN();
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", DataType::kF32, {}, false});
  g->initializers["w"] = randomTensor({5, 3, 3, 3}, 1);
  g->initializers["w"].setName("w");
  auto add = [&](const char* op, std::vector<std::string> in, std::string out, Attributes a = {}) {
    Node n;
    n.name = out;
    n.opType = op;
    n.inputs = std::move(in);
    n.outputs = {std::move(out)};
    n.attrs = std::move(a);
    g->nodes.push_back(n);
  };
  Attributes pads;
  pads.setInts("pads", {1, 1, 1, 1});
  add("Conv", {"x", "w"}, "c", pads);
  add("Relu", {"c"}, "r");
  add("LRN", {"r"}, "l", [] { Attributes a; a.setInt("size", 3); return a; }());  // may stay on the CPU
  add("Sigmoid", {"l"}, "s");
  add("GlobalAveragePool", {"s"}, "y");
  g->outputs.push_back({"y", DataType::kF32, {}, false});
  SessionOptions cpuOpt, vkOpt;
  vkOpt.backends = {BackendType::kVulkan};
  std::unique_ptr<Session> cpu, vk;
  ASSERT_TRUE(Session::create(g, cpuOpt, &cpu).isOk());
  ASSERT_TRUE(Session::create(g, vkOpt, &vk).isOk());
  for (const Shape& s : std::vector<Shape>{{1, 3, 9, 7}, {3, 3, 5, 13}, {1, 3, 9, 7}}) {
    std::map<std::string, Tensor> in = {{"x", randomTensor(s, 7)}}, a, b;
    ASSERT_TRUE(cpu->run(in, &a).isOk());
    Status st = vk->run(in, &b);
    ASSERT_TRUE(st.isOk()) << st.message();
    expectClose(b["y"], a["y"], 1e-4, 1e-5, shapeToString(s));
    EXPECT_EQ(vk->report().nodes[0].backend, BackendType::kVulkan);
  }
}

TEST(VulkanRuntime, GpuProfileHasOneTimePerDispatch) {
  TESSERA_REQUIRE_VULKAN();
  ScopedEnvVar always("TESSERA_VULKAN_TIMESTAMPS", "always");  // runOp does not profile
  OpRun r = runOp("Relu", {randomTensor({3, 5, 7, 9}, 3)}, {}, 1, BackendType::kVulkan);
  ASSERT_TRUE(r.status.isOk());
  const auto profile = vulkan::lastGpuProfile();
  bool found = false;
  for (const auto& p : profile) {
    EXPECT_GE(p.second, 0.0);
    found = found || p.first.find("[unary_PLAIN]") != std::string::npos;
  }
  EXPECT_TRUE(found) << "no 'unary' dispatch among " << profile.size() << " timed dispatches";
}

// Device timestamps are recorded only in plans made while profiling (they slowed every run on
// an H200): unprofiled runs time nothing, switching profiling on plans again and times the
// dispatches, switching it off plans again without; plans kept for other shapes go too.
TEST(VulkanRuntime, DispatchesAreTimedOnlyWhileProfiling) {
  TESSERA_REQUIRE_VULKAN();
  const auto softmaxTimed = [] {  // the last timed Vulkan run was this test's Softmax
    for (const auto& p : vulkan::lastGpuProfile())
      if (p.first.find("[softmax") != std::string::npos) return true;
    return false;
  };
  {
    ScopedEnvVar always("TESSERA_VULKAN_TIMESTAMPS", "always");
    ASSERT_TRUE(runOp("Relu", {randomTensor({2, 3}, 8)}, {}, 1, BackendType::kVulkan).status.isOk());
    ASSERT_FALSE(softmaxTimed());
  }
  ScopedEnvVar unset("TESSERA_VULKAN_TIMESTAMPS", nullptr);
  GraphBuilder gb;
  gb.output(gb.op1("Softmax", {gb.input("x", DataType::kF32, {-1, 5, 6, 7})}));
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  SessionOptions o;
  o.backends = {BackendType::kVulkan};
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, o, &s).isOk());
  const auto run = [&](int64_t n) {
    std::map<std::string, Tensor> outs;
    const Status st = s->run({{"x", randomTensor({n, 5, 6, 7}, 9)}}, &outs);
    EXPECT_TRUE(st.isOk()) << st.message();
    int deviceTimed = 0;
    for (const auto& e : s->profile()) deviceTimed += e.deviceTime ? 1 : 0;
    return deviceTimed;
  };
  run(1);
  run(2);  // two plans: one kept
  EXPECT_FALSE(softmaxTimed()) << "an unprofiled run recorded timestamps";
  EXPECT_EQ(s->planCache().plansMade, 2);
  ASSERT_TRUE(s->setProfiling(true).isOk());
  EXPECT_GT(run(2), 0) << "profiling: the Softmax and the copies carry device times";
  EXPECT_TRUE(softmaxTimed());
  EXPECT_EQ(s->planCache().plansMade, 3) << "switching profiling on plans again";
  EXPECT_GT(run(1), 0) << "the kept batch-1 plan, made unprofiled, was dropped";
  EXPECT_EQ(s->planCache().plansMade, 4);
  ASSERT_TRUE(s->setProfiling(true).isOk());  // no change: the plans stay
  run(1);
  EXPECT_EQ(s->planCache().plansMade, 4);
  ASSERT_TRUE(s->setProfiling(false).isOk());
  {
    ScopedEnvVar always("TESSERA_VULKAN_TIMESTAMPS", "always");
    ASSERT_TRUE(runOp("Relu", {randomTensor({2, 3}, 8)}, {}, 1, BackendType::kVulkan).status.isOk());
  }
  run(1);
  EXPECT_EQ(s->planCache().plansMade, 5) << "switching profiling off plans again";
  EXPECT_FALSE(softmaxTimed()) << "the plan made after profiling stopped still records timestamps";
}

TEST(VulkanRuntime, PipelineCacheIsPersisted) {
  TESSERA_REQUIRE_VULKAN();
  const std::string path = vulkan::pipelineCachePath();
  if (path.empty()) GTEST_SKIP() << "SKIP pipeline cache disabled (no cache directory)";
  // Planning a pipeline writes the cache file (the device itself stays open).
  OpRun r = runOp("Softmax", {randomTensor({3, 7}, 4)}, {}, 1, BackendType::kVulkan);
  ASSERT_TRUE(r.status.isOk());
  std::ifstream f(path, std::ios::binary);
  ASSERT_TRUE(f.good()) << "no pipeline cache at " << path;
  // The file is keyed by the device and the shaders; its name says so.
  EXPECT_NE(path.find("pipelines-"), std::string::npos);
}

TEST(VulkanRuntime, ValidationLayerReportsNoErrors) {
  TESSERA_REQUIRE_VULKAN();
  if (!vulkan::validationEnabled())
    GTEST_SKIP() << "SKIP validation layer off (set TESSERA_VULKAN_VALIDATION=1; CTest vulkan_validation does)";
  const Tensor x = randomTensor({3, 5, 7, 9}, 5);
  expectVulkanMatchesCpu("Conv", {x, randomTensor({4, 5, 3, 3}, 6)}, {}, 1, {false, true});
  expectVulkanMatchesCpu("Add", {x, randomTensor({5, 1, 1}, 7)}, {});
  expectVulkanMatchesCpu("Softmax", {x}, {});
  EXPECT_EQ(vulkan::validationErrorCount(), 0u) << vulkan::lastValidationMessage();
}

}  // namespace
}  // namespace test
}  // namespace tessera

namespace tessera {
namespace test {
namespace {

// The planned copy protocol driven by hand: host NC4HW4 -> Vulkan NCHW (converted on the
// GPU) -> host NC4HW4 and host NCHW, in one recorded segment.
TEST(VulkanRuntime, TransfersConvertNC4HW4OnTheGpu) {
  TESSERA_REQUIRE_VULKAN();
  const BackendFactory* f = BackendRegistry::instance().find(BackendType::kVulkan);
  std::unique_ptr<Backend> vk;
  ASSERT_TRUE(f->create(BackendOptions{}, &vk).isOk());
  for (const Shape& s : std::vector<Shape>{{3, 5, 7, 3}, {1, 13, 1, 1}, {2, 3, 5}}) {
    const Tensor x = randomTensor(s, 9);
    Tensor packed = Tensor::hostAllocate(s, DataType::kF32, Layout::kNC4HW4);
    convertLayout(x, packed);
    Tensor backPacked = Tensor::hostAllocate(s, DataType::kF32, Layout::kNC4HW4);
    Tensor backPlain = Tensor::hostAllocate(s, DataType::kF32, Layout::kNCHW);
    Tensor dev(s, DataType::kF32, Layout::kNCHW);
    dev.setName("dev");
    vk->onResizeBegin();
    ASSERT_TRUE(vk->onAcquireBuffer(&dev, StorageType::kStatic).isOk());
    vk->onSegmentBegin(0);
    auto up = vk->onCreateCopy(&packed, &dev);
    auto down1 = vk->onCreateCopy(&dev, &backPacked);
    auto down2 = vk->onCreateCopy(&dev, &backPlain);
    ASSERT_TRUE(up && down1 && down2);
    ASSERT_TRUE(up->onResize({&packed}, {&dev}).isOk());
    ASSERT_TRUE(down1->onResize({&dev}, {&backPacked}).isOk());
    ASSERT_TRUE(down2->onResize({&dev}, {&backPlain}).isOk());
    ASSERT_TRUE(vk->onSegmentEnd(0).isOk());
    ASSERT_TRUE(vk->onResizeEnd().isOk());
    vk->onExecuteBegin(0);
    ASSERT_TRUE(up->onExecute({&packed}, {&dev}).isOk());
    ASSERT_TRUE(down1->onExecute({&dev}, {&backPacked}).isOk());
    ASSERT_TRUE(down2->onExecute({&dev}, {&backPlain}).isOk());
    Status st = vk->onExecuteEnd(0);
    ASSERT_TRUE(st.isOk()) << st.message();
    expectClose(backPlain, x, 0, 0, "NC4HW4 -> NCHW " + shapeToString(s));
    Tensor unpacked = Tensor::hostAllocate(s, DataType::kF32);
    convertLayout(backPacked, unpacked);
    expectClose(unpacked, x, 0, 0, "NCHW -> NC4HW4 " + shapeToString(s));
    for (int64_t i = 0; i < physicalElementCount(s, Layout::kNC4HW4); ++i)  // padding lanes are zero
      if (backPacked.data<float>()[i] != packed.data<float>()[i]) { ADD_FAILURE() << "lane " << i; break; }
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
