// Ops on NC4HW4 storage images: each tested input first goes through an identity 1x1 Conv
// on Vulkan (which leaves it, exactly, in an image), so the op under test takes images as
// a model would give them; the graph is compared with the CPU running the same graph.
#include <map>

#include "tessera/Graph.hpp"
#include "tessera/Session.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

Tensor identityWeights(int64_t c, size_t rank) {
  Shape s = {c, c};
  s.resize(rank, 1);
  Tensor w = Tensor::hostAllocate(s, DataType::kF32);
  float* p = w.data<float>();
  for (int64_t i = 0; i < c * c; ++i) p[i] = (i % (c + 1)) == 0 ? 1.f : 0.f;
  return w;
}

Tensor scalar(float v) {
  Tensor t = Tensor::hostAllocate({1}, DataType::kF32);
  t.data<float>()[0] = v;
  return t;
}

// `op` on `inputs`; inputs flagged in `viaImage` arrive as NC4HW4 images, the others are
// constants. Checks Vulkan ran every node, no image went back to a buffer on the GPU
// (the op consumed the images), and the outputs match the CPU.
void expectImageOpMatchesCpu(const std::string& op, const std::vector<Tensor>& inputs,
                             const std::vector<bool>& viaImage, const Attributes& attrs = {},
                             double rtol = 1e-4, double atol = 1e-5) {
  const std::string what = op + " " + shapeToString(inputs[0].shape());
  GraphBuilder g;
  std::vector<std::string> names;
  std::map<std::string, Tensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    if (inputs[i].dtype() == DataType::kUnknown) {  // an omitted optional input
      names.push_back("");
      continue;
    }
    if (!viaImage[i]) {
      names.push_back(g.constant(name, inputs[i]));
      continue;
    }
    g.input(name, DataType::kF32, inputs[i].shape());
    feeds[name] = inputs[i];
    const std::string w = g.constant(name + "_eye", identityWeights(inputs[i].dim(1), inputs[i].rank()));
    names.push_back(g.op1("Conv", {name, w}));
  }
  const std::string y = g.op1(op, names, attrs);
  g.output(y);
  std::shared_ptr<Graph> graph;
  ASSERT_TRUE(g.build(&graph).isOk()) << what;
  SessionOptions cpuOpt, vkOpt;
  vkOpt.backends = {BackendType::kVulkan};
  vkOpt.nc4Storage = Nc4Storage::kImage;  // these tests are about images, whatever this device measures
  std::unique_ptr<Session> cpu, vk;
  ASSERT_TRUE(Session::create(graph, cpuOpt, &cpu).isOk());
  ASSERT_TRUE(Session::create(graph, vkOpt, &vk).isOk());
  std::map<std::string, Tensor> a, b;
  ASSERT_TRUE(cpu->run(feeds, &a).isOk()) << what;
  Status st = vk->run(feeds, &b);
  ASSERT_TRUE(st.isOk()) << what << ": " << st.message();
  for (const auto& n : vk->report().nodes)
    ASSERT_EQ(n.backend, BackendType::kVulkan) << what << ": " << n.node << " fell back";
  for (const std::string& c : vk->report().conversions)
    EXPECT_EQ(c.find("vulkan NC4HW4 -> vulkan NCHW"), std::string::npos) << what << ": " << c;
  expectClose(b[y], a[y], rtol, atol, what);
}

TEST(VulkanImages, UnaryAndClip) {
  TESSERA_REQUIRE_VULKAN();
  for (const char* op : {"Relu", "Sigmoid", "HardSwish", "Exp", "Tanh", "Abs"})
    for (const Shape& s : std::vector<Shape>{{2, 5, 7, 3}, {1, 13, 1, 9}, {3, 6, 11}})
      expectImageOpMatchesCpu(op, {randomTensor(s, 51)}, {true});
  expectImageOpMatchesCpu("Clip", {randomTensor({2, 7, 5, 5}, 52), scalar(-0.25f), scalar(0.5f)},
                          {true, false, false});
}

TEST(VulkanImages, BinaryBroadcastsWholeDimensions) {
  TESSERA_REQUIRE_VULKAN();
  const Shape s = {2, 5, 7, 3};
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Max"}) {
    expectImageOpMatchesCpu(op, {randomTensor(s, 61), randomTensor(s, 62, 0.5f, 2.f)}, {true, true});
    // Per-channel constant (becomes an image of its own), channel count 1 spread over
    // the lanes, broadcast N/H/W, and single values on either side.
    expectImageOpMatchesCpu(op, {randomTensor(s, 63), randomTensor({1, 5, 1, 1}, 64, 0.5f, 2.f)}, {true, false});
    expectImageOpMatchesCpu(op, {randomTensor(s, 65), randomTensor({2, 1, 7, 3}, 66, 0.5f, 2.f)}, {true, true});
    expectImageOpMatchesCpu(op, {randomTensor({1, 5, 7, 1}, 67), randomTensor({2, 5, 1, 3}, 68, 0.5f, 2.f)},
                            {true, true});
    expectImageOpMatchesCpu(op, {randomTensor(s, 69), scalar(1.5f)}, {true, false});
    expectImageOpMatchesCpu(op, {scalar(0.75f), randomTensor(s, 70, 0.5f, 2.f)}, {false, true});
  }
  expectImageOpMatchesCpu("PRelu", {randomTensor({3, 6, 5}, 71), randomTensor({1, 6, 1}, 72)}, {true, false});
  expectImageOpMatchesCpu("Mean", {randomTensor(s, 73), randomTensor(s, 74)}, {true, true});
  Attributes fmod;  // Mod (fmod = 1) takes the same kernels
  fmod.setInt("fmod", 1);
  expectImageOpMatchesCpu("Mod", {randomTensor(s, 75, -9.f, 9.f), randomTensor({1, 5, 1, 1}, 76, 0.5f, 2.f)},
                          {true, false}, fmod);
  expectImageOpMatchesCpu("Mod", {randomTensor(s, 77, -9.f, 9.f), scalar(-1.25f)}, {true, false}, fmod);
}

TEST(VulkanImages, BatchNormalization) {
  TESSERA_REQUIRE_VULKAN();
  for (const Shape& s : std::vector<Shape>{{2, 5, 7, 3}, {1, 13, 4, 9}, {3, 6, 11}}) {
    const int64_t c = s[1];
    expectImageOpMatchesCpu("BatchNormalization",
                            {randomTensor(s, 81), randomTensor({c}, 82), randomTensor({c}, 83),
                             randomTensor({c}, 84), randomTensor({c}, 85, 0.5f, 2.f)},
                            {true, false, false, false, false});
  }
}

Tensor floats(const Shape& s, std::vector<float> v) {
  Tensor t = Tensor::hostAllocate(s, DataType::kF32);
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}

TEST(VulkanImages, ResizeAlongHeightAndWidth) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor none(Shape{}, DataType::kUnknown);
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    Attributes a;
    a.setString("mode", mode);
    expectImageOpMatchesCpu("Resize", {randomTensor({2, 5, 7, 9}, 91), none, floats({4}, {1.f, 1.f, 2.f, 0.5f})},
                            {true, false, false}, a);
    expectImageOpMatchesCpu("Resize", {randomTensor({1, 6, 9}, 92), none, floats({3}, {1.f, 1.f, 2.5f})},
                            {true, false, false}, a);
  }
}

// With the sum Z (ops/Resize.hpp) also arriving as an image, as a feature pyramid's lateral
// map does.
TEST(VulkanImages, ResizeWithSumZ) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor none(Shape{}, DataType::kUnknown);
  for (const char* mode : {"nearest", "linear"}) {
    Attributes a;
    a.setString("mode", mode);
    expectImageOpMatchesCpu("Resize", {randomTensor({2, 5, 7, 9}, 93), none, floats({4}, {1.f, 1.f, 2.f, 0.5f}), none,
                                       randomTensor({2, 5, 14, 4}, 94)},
                            {true, false, false, false, true}, a);
  }
}

TEST(VulkanImages, ConcatAlongEachAxis) {
  TESSERA_REQUIRE_VULKAN();
  // A ragged channel count before the last input: the buffer path, same answers.
  Attributes c;
  c.setInt("axis", 1);
  expectVulkanMatchesCpu("Concat", {randomTensor({2, 5, 3, 3}, 93), randomTensor({2, 3, 3, 3}, 94)}, c);
  for (int64_t axis : {0, 1, 2, 3}) {
    Attributes a;
    a.setInt("axis", axis);
    Shape s1 = {2, 4, 5, 3}, s2 = s1, s3 = s1;
    s2[axis] = axis == 1 ? 8 : 3;
    s3[axis] = axis == 1 ? 3 : 2;  // along C, only the last input may end mid-pixel
    expectImageOpMatchesCpu("Concat", {randomTensor(s1, 95), randomTensor(s2, 96), randomTensor(s3, 97)},
                            {true, true, false}, a);
  }
  // Along C, two to four images are one dispatch (concat_channels.comp), five a copy each.
  std::vector<Tensor> inputs;
  for (int k = 0; k < 5; ++k) inputs.push_back(randomTensor({2, k == 4 ? 5 : 4 * (k + 1), 3, 7}, 98 + k));
  for (size_t count : {2, 4, 5}) {
    const std::vector<Tensor> some(inputs.end() - static_cast<std::ptrdiff_t>(count), inputs.end());
    expectImageOpMatchesCpu("Concat", some, std::vector<bool>(count, true), c);
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
