// Untrusted sizes: attribute values and dims that overflow int64 in a shape function are an
// error naming the node (never a SIGFPE or a wrapped-around shape), and tensors or plans
// past SessionOptions' limits are refused before anything is allocated.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>

#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace {

using test::randomTensor;
using test::runOp;
using test::tensorFromInts;

constexpr int64_t kHuge = int64_t(1) << 62;

Attributes intAttr(const char* name, int64_t v) {
  Attributes a;
  a.setInt(name, v);
  return a;
}

Attributes intsAttr(const char* name, std::vector<int64_t> v) {
  Attributes a;
  a.setInts(name, std::move(v));
  return a;
}

// The outside probe's case: blocksize 2^62 squared wraps to 0, then C % 0 raised SIGFPE.
TEST(UntrustedSizes, DepthToSpaceHugeBlocksizeIsAnError) {
  for (const char* op : {"DepthToSpace", "SpaceToDepth"}) {
    const test::OpRun r = runOp(op, {randomTensor({1, 4, 2, 2}, 1)}, intAttr("blocksize", kHuge), 1, BackendType::kCPU);
    ASSERT_FALSE(r.status.isOk()) << op;
    EXPECT_NE(r.status.message().find(op), std::string::npos) << r.status.message();
  }
  // 2^32 squared is exactly 2^64: wraps to 0 too.
  const test::OpRun r =
      runOp("DepthToSpace", {randomTensor({1, 4, 2, 2}, 1)}, intAttr("blocksize", int64_t(1) << 32), 1, BackendType::kCPU);
  EXPECT_FALSE(r.status.isOk());
}

// Each case: an op whose attributes or constant inputs overflow a size computation. The
// answer must be an error (the outputs would not fit in int64 or are past the limits).
TEST(UntrustedSizes, OverflowingAttributesAreErrors) {
  const Tensor x = randomTensor({1, 2, 3, 3}, 2);
  const Tensor w = randomTensor({2, 2, 1, 1}, 3);
  struct Case {
    const char* what;
    const char* op;
    std::vector<Tensor> inputs;
    Attributes attrs;
    std::vector<bool> constant;
  };
  Attributes convStride = intsAttr("strides", {kHuge, 1});
  Attributes convDilation = intsAttr("dilations", {kHuge, kHuge});
  convDilation.setInts("kernel_shape", {3, 3});
  Attributes poolPads = intsAttr("kernel_shape", {1, 1});
  poolPads.setInts("pads", {INT64_MAX, 0, INT64_MAX, 0});
  Attributes poolSame = intsAttr("kernel_shape", {2, 2});
  poolSame.setString("auto_pad", "SAME_UPPER");
  poolSame.setInts("strides", {INT64_MAX, INT64_MAX});
  Attributes poolCeil = intsAttr("kernel_shape", {1, 1});
  poolCeil.setInt("ceil_mode", 1);
  poolCeil.setInts("strides", {INT64_MAX, 1});
  poolCeil.setInts("pads", {0, 0, INT64_MAX - 3, 0});  // padded extent INT64_MAX: no overflow allowed after
  const Case cases[] = {
      {"Tile repeats", "Tile", {x, tensorFromInts({4}, {1, 1, kHuge, kHuge})}, {}, {false, true}},
      {"Pad pads", "Pad", {x, tensorFromInts({8}, {0, 0, INT64_MAX, 0, 0, 0, INT64_MAX, 0})}, {}, {false, true}},
      {"Reshape shape", "Reshape", {x, tensorFromInts({3}, {kHuge, kHuge, -1})}, {}, {false, true}},
      {"Expand shape", "Expand", {x, tensorFromInts({4}, {kHuge, kHuge, 3, 3})}, {}, {false, true}},
      {"ConstantOfShape", "ConstantOfShape", {tensorFromInts({3}, {kHuge, kHuge, 4})}, {}, {true}},
      {"ConvTranspose stride", "ConvTranspose", {x, w}, convStride, {false, true}},
      {"Conv dilation", "Conv", {x, randomTensor({2, 2, 3, 3}, 4)}, convDilation, {false, true}},
      {"MaxPool pads", "MaxPool", {x}, poolPads, {false}},
      {"Resize scales", "Resize",
       {x, Tensor(), test::tensorFrom({4}, {1.f, 1.f, 1e30f, 1e30f})}, {}, {false, true, true}},
      {"Resize sizes", "Resize",
       {x, Tensor(), Tensor(), tensorFromInts({4}, {1, 2, INT64_MAX, INT64_MAX})}, {}, {false, true, true, true}},
  };
  for (const Case& c : cases) {
    const test::OpRun r = runOp(c.op, c.inputs, c.attrs, 1, BackendType::kCPU, c.constant);
    EXPECT_FALSE(r.status.isOk()) << c.what;
    EXPECT_NE(r.status.message().find(c.op), std::string::npos) << c.what << ": " << r.status.message();
  }
  // Valid but extreme: huge strides (SAME padding, ceil mode) and slice steps give small outputs.
  test::OpRun r = runOp("MaxPool", {x}, poolSame, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_EQ(shapeToString(r.outputs[0].shape()), "1x2x1x1");
  r = runOp("MaxPool", {x}, poolCeil, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_EQ(shapeToString(r.outputs[0].shape()), "1x2x1x3");
  for (int64_t step : {INT64_MAX, INT64_MIN}) {
    const int64_t start = step > 0 ? 0 : -1, end = step > 0 ? INT64_MAX : INT64_MIN;
    r = runOp("Slice",
              {x, tensorFromInts({1}, {start}), tensorFromInts({1}, {end}), tensorFromInts({1}, {3}),
               tensorFromInts({1}, {step})},
              {}, 1, BackendType::kCPU, {false, true, true, true, true});
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    EXPECT_EQ(shapeToString(r.outputs[0].shape()), "1x2x3x1") << step;
  }
}

std::shared_ptr<Graph> reluGraph() {
  GraphBuilder b;
  b.input("x", DataType::kF32, {-1, 3, -1, -1});
  b.output(b.op1("Relu", {"x"}));
  std::shared_ptr<Graph> g;
  EXPECT_TRUE(b.build(&g).isOk());
  return g;
}

// `--shape x=1x3x100000x100000` is an error naming the input, not an OOM kill.
TEST(ResourceLimits, HugeInputShapeIsRefusedBeforeAllocating) {
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(reluGraph(), SessionOptions{}, &s).isOk());
  const Status st = s->resize({{"x", {1, 3, 100000, 100000}}});
  EXPECT_EQ(st.code(), StatusCode::kOutOfMemory) << st.message();
  EXPECT_NE(st.message().find("input 'x'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("maxTensorElements"), std::string::npos) << st.message();
  EXPECT_TRUE(s->resize({{"x", {1, 3, 8, 8}}}).isOk());  // the session still works
}

TEST(ResourceLimits, LimitsComeFromSessionOptions) {
  SessionOptions o;
  o.maxTensorElements = 100;
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(reluGraph(), o, &s).isOk());
  EXPECT_TRUE(s->resize({{"x", {1, 3, 5, 6}}}).isOk());  // 90 elements
  Status st = s->resize({{"x", {1, 3, 5, 7}}});         // 105
  EXPECT_EQ(st.code(), StatusCode::kOutOfMemory) << st.message();

  o = SessionOptions();
  o.maxMemoryBytes = 4096;  // input + output of 3x16x16 f32 = 6 KiB
  ASSERT_TRUE(Session::create(reluGraph(), o, &s).isOk());
  EXPECT_TRUE(s->resize({{"x", {1, 3, 8, 8}}}).isOk());  // 1.5 KiB
  st = s->resize({{"x", {1, 3, 16, 16}}});
  EXPECT_EQ(st.code(), StatusCode::kOutOfMemory) << st.message();
  EXPECT_NE(st.message().find("maxMemoryBytes"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace tessera
