// ONNX importer: real node-test models, malformed bytes, unknown ops, attributes, and the
// Conv+BatchNormalization fold (same numbers as the unfolded graph).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "tessera/OnnxImporter.hpp"
#include "tessera/Tessera.hpp"
#include "tools/onnx/FoldConvBatchNorm.hpp"
#include "unit/OnnxModelBytes.hpp"

namespace tessera {
namespace test {
namespace {

const std::string kNodeTests = "/usr/share/libonnx-testdata/data/node";

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool haveNodeTests() { return std::ifstream(kNodeTests + "/test_relu/model.onnx").good(); }

Status loadBytes(const std::string& bytes, std::shared_ptr<Graph>* g) {
  return loadOnnxModelFromBytes(bytes.data(), bytes.size(), g);
}

// A Relu model x -> y, the smallest valid graph.
GraphParts reluParts() {
  GraphParts p;
  p.inputs.push_back(valueInfoProto("x", kOnnxFloat, {2, 3}));
  p.outputs.push_back(valueInfoProto("y", kOnnxFloat, {2, 3}));
  p.nodes.push_back(nodeProto("Relu", {"x"}, {"y"}, "relu"));
  return p;
}

TEST(OnnxImporter, RealNodeModelLoads) {
  if (!haveNodeTests()) GTEST_SKIP() << "libonnx-testdata not installed at " << kNodeTests;
  std::shared_ptr<Graph> g;
  Status s = loadOnnxModel(kNodeTests + "/test_relu/model.onnx", &g);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].opType, "Relu");
  EXPECT_FALSE(g->nodes[0].name.empty());
  EXPECT_GE(g->nodes[0].opset, 6);
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->inputs[0].dtype, DataType::kF32);
  EXPECT_EQ(g->inputs[0].dims, (std::vector<int64_t>{3, 4, 5}));
  ASSERT_EQ(g->outputs.size(), 1u);

  Tensor t;
  std::string name;
  s = loadOnnxTensor(kNodeTests + "/test_relu/test_data_set_0/input_0.pb", &t, &name);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(t.shape(), (Shape{3, 4, 5}));
  EXPECT_EQ(t.dtype(), DataType::kF32);
  EXPECT_NE(t.data(), nullptr);
}

TEST(OnnxImporter, TruncatedModelIsAClearError) {
  const std::string full = haveNodeTests() ? readFile(kNodeTests + "/test_conv_with_strides_padding/model.onnx")
                                           : modelBytes(reluParts());
  ASSERT_GT(full.size(), 16u);
  for (size_t keep : {full.size() / 2, full.size() - 1, size_t(3)}) {
    const std::string cut = full.substr(0, keep);
    std::shared_ptr<Graph> g;
    Status s = loadBytes(cut, &g);
    EXPECT_FALSE(s.isOk()) << "kept " << keep << " of " << full.size() << " bytes";
    EXPECT_NE(s.message().find("not a valid ONNX model"), std::string::npos) << s.message();
  }
  // From a file, the message names the file.
  const std::string path = ::testing::TempDir() + "tessera_truncated.onnx";
  std::ofstream(path, std::ios::binary) << full.substr(0, full.size() / 2);
  std::shared_ptr<Graph> g;
  Status s = loadOnnxModel(path, &g);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("not a valid ONNX model: " + path), std::string::npos) << s.message();
  std::remove(path.c_str());
}

TEST(OnnxImporter, RandomBytesAreRejected) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string bytes(1 + rng() % 2000, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    std::shared_ptr<Graph> g;
    Status s = loadBytes(bytes, &g);
    EXPECT_FALSE(s.isOk()) << "trial " << trial;
    EXPECT_FALSE(s.message().empty());
  }
  std::shared_ptr<Graph> g;
  EXPECT_FALSE(loadBytes("", &g).isOk());
  EXPECT_FALSE(loadOnnxModel("/nonexistent/model.onnx", &g).isOk());
}

TEST(OnnxImporter, CorruptedRealModelsNeverCrash) {
  if (!haveNodeTests()) GTEST_SKIP() << "libonnx-testdata not installed at " << kNodeTests;
  std::mt19937 rng(11);
  for (const char* name : {"test_conv_with_strides_padding", "test_gemm_default_matrix_bias",
                           "test_constant", "test_reshape_reordered_all_dims"}) {
    const std::string full = readFile(kNodeTests + "/" + name + "/model.onnx");
    ASSERT_FALSE(full.empty()) << name;
    for (int trial = 0; trial < 100; ++trial) {
      std::string bytes = full;
      for (int k = 0; k < 4; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
      std::shared_ptr<Graph> g;
      loadBytes(bytes, &g);  // any outcome but a crash is fine
    }
  }
}

TEST(OnnxImporter, UnknownOpsAreAllNamed) {
  GraphParts p;
  p.inputs.push_back(valueInfoProto("x", kOnnxFloat, {2}));
  p.outputs.push_back(valueInfoProto("z", kOnnxFloat, {2}));
  p.nodes.push_back(nodeProto("NoSuchOp", {"x"}, {"y"}));
  p.nodes.push_back(nodeProto("AlsoMissing", {"y"}, {"z"}, "second", {}, "com.example"));
  std::shared_ptr<Graph> g;
  Status s = loadBytes(modelBytes(p, 13, {"com.example"}), &g);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("unknown op 'NoSuchOp' (domain '') in node 'NoSuchOp_0'"),
            std::string::npos) << s.message();
  EXPECT_NE(s.message().find("unknown op 'AlsoMissing' (domain 'com.example') in node 'second'"),
            std::string::npos) << s.message();
}

TEST(OnnxImporter, InputsOpsetsNamesAndAttributes) {
  GraphParts p;
  // "w" is both an initializer and a listed input: a weight, not a graph input.
  p.initializers.push_back(floatTensorProto("w", {3}, {1.f, 2.f, 3.f}));
  p.inputs.push_back(valueInfoProto("x", kOnnxFloat, {-1, 3}));
  p.inputs.push_back(valueInfoProto("w", kOnnxFloat, {3}));
  p.outputs.push_back(valueInfoProto("y", kOnnxFloat, {-1, 3}));
  p.nodes.push_back(nodeProto(
      "Relu", {"x"}, {"y"}, "",
      {intAttribute("an_int", -5), floatAttribute("a_float", 0.25f),
       intsAttribute("some_ints", {1, -2, 3}), stringAttribute("a_string", "hello"),
       tensorAttribute("a_tensor", floatTensorProto("t", {2}, {4.f, 5.f}))}));
  std::shared_ptr<Graph> g;
  Status s = loadBytes(modelBytes(p, 11), &g);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->inputs[0].name, "x");
  EXPECT_TRUE(g->inputs[0].hasShape);
  EXPECT_EQ(g->inputs[0].dims, (std::vector<int64_t>{-1, 3}));
  ASSERT_EQ(g->initializers.count("w"), 1u);
  EXPECT_EQ(g->initializers.at("w").data<float>()[2], 3.f);

  ASSERT_EQ(g->nodes.size(), 1u);
  const Node& n = g->nodes[0];
  EXPECT_EQ(n.name, "Relu_0");
  EXPECT_EQ(n.opset, 11);
  EXPECT_EQ(n.attrs.getInt("an_int", 0), -5);
  EXPECT_FLOAT_EQ(n.attrs.getFloat("a_float", 0.f), 0.25f);
  EXPECT_EQ(n.attrs.getInts("some_ints"), (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(n.attrs.getString("a_string", ""), "hello");
  const Attribute* t = n.attrs.find("a_tensor");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->kind, Attribute::Kind::kTensor);
  ASSERT_EQ(t->t.shape(), (Shape{2}));
  EXPECT_EQ(t->t.data<float>()[1], 5.f);
}

TEST(OnnxImporter, UnsupportedContentIsAClearError) {
  auto expectError = [](const GraphParts& p, const std::string& needle) {
    std::shared_ptr<Graph> g;
    Status s = loadBytes(modelBytes(p), &g);
    EXPECT_FALSE(s.isOk()) << "expected an error containing: " << needle;
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  {  // an error inside a sub-graph names the node that holds it and the sub-graph's node
    GraphParts p = reluParts(), branch = reluParts();
    branch.nodes[0] = nodeProto("NoSuchOp", {"x"}, {"y"}, "inner");
    p.nodes[0] = nodeProto("Relu", {"x"}, {"y"}, "with_branch",
                           {graphAttribute("then_branch", graphProto(branch))});
    expectError(p, "Relu 'with_branch': attribute 'then_branch': unknown op 'NoSuchOp' (domain '') in node 'inner'");
  }
  {  // raw_data shorter than the dims say
    GraphParts p = reluParts();
    ProtoBytes t;
    t.varint(1, 4).varint(2, kOnnxFloat).bytes(8, "short").bytes(9, std::string(12, '\0'));
    p.initializers.push_back(t);
    expectError(p, "raw_data holds 12 bytes");
  }
  // Dims that claim 2^31 elements over 12 bytes of data (raw or typed): refused before
  // anything of the claimed size is allocated (once 19 s and 8 GiB).
  for (bool raw : {true, false}) {
    GraphParts p = reluParts();
    ProtoBytes t;
    t.varint(1, int64_t(1) << 16).varint(1, int64_t(1) << 15).varint(2, kOnnxFloat).bytes(8, "claims_2g");
    if (raw) t.bytes(9, std::string(12, '\0'));
    else t.fixed32(4, 1.f).fixed32(4, 2.f).fixed32(4, 3.f);
    p.initializers.push_back(t);
    const auto start = std::chrono::steady_clock::now();
    expectError(p, raw ? "raw_data holds 12 bytes" : "float_data holds 3 values");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.5);
  }
  {  // external data
    GraphParts p = reluParts();
    ProtoBytes entry;
    entry.bytes(1, "location").bytes(2, "weights.bin");
    ProtoBytes t;
    t.varint(1, 4).varint(2, kOnnxFloat).bytes(8, "ext").message(13, entry).varint(14, 1);
    p.initializers.push_back(t);
    expectError(p, "external");
  }
  {  // string tensors
    GraphParts p = reluParts();
    ProtoBytes t;
    t.varint(1, 1).varint(2, kOnnxString).bytes(6, "abc").bytes(8, "words");
    p.initializers.push_back(t);
    expectError(p, "strings");
  }
}

// --- Conv + BatchNormalization folding ------------------------------------------------------

Tensor randomTensorOf(const Shape& shape, uint32_t seed, float lo, float hi) {
  Tensor t = Tensor::hostAllocate(shape, DataType::kF32);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.elementCount(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

// x(1x3x7x6) -> Conv(5 filters 3x3, pad 1, bias) -> BN -> y; `extraUse` also outputs the conv.
std::shared_ptr<Graph> convBnGraph(bool extraUse) {
  GraphBuilder b;
  const std::string x = b.input("x", DataType::kF32, {1, 3, 7, 6});
  const std::string w = b.constant("w", randomTensorOf({5, 3, 3, 3}, 1, -1, 1));
  const std::string bias = b.constant("b", randomTensorOf({5}, 2, -1, 1));
  Attributes conv;
  conv.setInts("pads", {1, 1, 1, 1});
  conv.setInts("kernel_shape", {3, 3});
  const std::string c = b.op("Conv", {x, w, bias}, conv, 1, "conv")[0];
  Attributes bn;
  bn.setFloat("epsilon", 1e-3f);
  const std::string y = b.op("BatchNormalization",
                             {c, b.constant("scale", randomTensorOf({5}, 3, 0.5f, 2.f)),
                              b.constant("shift", randomTensorOf({5}, 4, -1, 1)),
                              b.constant("mean", randomTensorOf({5}, 5, -1, 1)),
                              b.constant("var", randomTensorOf({5}, 6, 0.1f, 2.f))},
                             bn, 1, "bn")[0];
  b.output(y);
  if (extraUse) b.output(c);
  std::shared_ptr<Graph> g;
  EXPECT_TRUE(b.build(&g).isOk());
  return g;
}

TEST(FoldConvBatchNorm, FoldsOnlyAPrivateConvOutput) {
  auto g = convBnGraph(false);
  int folded = 0;
  ASSERT_TRUE(foldConvBatchNorm(g.get(), &folded).isOk());
  EXPECT_EQ(folded, 1);
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].opType, "Conv");
  EXPECT_EQ(g->nodes[0].outputs[0], g->outputs[0].name);
  EXPECT_EQ(g->initializers.count("scale"), 0u) << "unused BN parameters are dropped";
  EXPECT_TRUE(g->validate().isOk());

  auto shared = convBnGraph(true);  // the conv output is also a graph output: keep both
  ASSERT_TRUE(foldConvBatchNorm(shared.get(), &folded).isOk());
  EXPECT_EQ(folded, 0);
  EXPECT_EQ(shared->nodes.size(), 2u);
}

TEST(FoldConvBatchNorm, ImporterFoldsConvBatchNorm) {
  if (!ShapeRegistry::instance().knows("", "Conv") ||
      !ShapeRegistry::instance().knows("", "BatchNormalization")) {
    GTEST_SKIP() << "Conv/BatchNormalization shape functions not in this build yet";
  }
  GraphParts p;
  p.inputs.push_back(valueInfoProto("x", kOnnxFloat, {1, 2, 4, 4}));
  p.outputs.push_back(valueInfoProto("y", kOnnxFloat, {1, 2, 4, 4}));
  p.initializers.push_back(floatTensorProto("w", {2, 2, 1, 1}, {1, 2, 3, 4}));
  p.initializers.push_back(floatTensorProto("scale", {2}, {2, 3}));
  p.initializers.push_back(floatTensorProto("shift", {2}, {0.5f, -1}));
  p.initializers.push_back(floatTensorProto("mean", {2}, {1, 2}));
  p.initializers.push_back(floatTensorProto("var", {2}, {4, 9}));
  p.nodes.push_back(nodeProto("Conv", {"x", "w"}, {"c"}, "conv"));
  p.nodes.push_back(nodeProto("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"y"},
                              "bn", {floatAttribute("epsilon", 0.f)}));
  std::shared_ptr<Graph> g;
  Status s = loadBytes(modelBytes(p), &g);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(g->nodes.size(), 1u);
  const Node& conv = g->nodes[0];
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_EQ(conv.outputs[0], "y");
  // s = scale / sqrt(var) = {1, 1}; W' = W; B' = (0 - mean) * s + shift = {-0.5, -3}.
  const Tensor& bias = g->initializers.at(conv.inputs[2]);
  EXPECT_FLOAT_EQ(bias.data<float>()[0], -0.5f);
  EXPECT_FLOAT_EQ(bias.data<float>()[1], -3.f);
  EXPECT_EQ(g->initializers.count("var"), 0u);
}

// x(1x4x5x6) -> ConvTranspose(stride 2, W [4, M/group, 3, 3], bias) -> BN over M -> y.
std::shared_ptr<Graph> convTransposeBnGraph(int64_t group, int64_t outPerGroup) {
  GraphBuilder b;
  const int64_t M = group * outPerGroup;
  const std::string x = b.input("x", DataType::kF32, {1, 4, 5, 6});
  Attributes ct;
  ct.setInts("strides", {2, 2});
  ct.setInt("group", group);
  const std::string c = b.op("ConvTranspose", {x, b.constant("w", randomTensorOf({4, outPerGroup, 3, 3}, 11, -1, 1)),
                                               b.constant("b", randomTensorOf({M}, 12, -1, 1))},
                             ct, 1, "ct")[0];
  const std::string y = b.op("BatchNormalization",
                             {c, b.constant("scale", randomTensorOf({M}, 13, 0.5f, 2.f)),
                              b.constant("shift", randomTensorOf({M}, 14, -1, 1)),
                              b.constant("mean", randomTensorOf({M}, 15, -1, 1)),
                              b.constant("var", randomTensorOf({M}, 16, 0.1f, 2.f))},
                             {}, 1, "bn")[0];
  b.output(y);
  std::shared_ptr<Graph> g;
  EXPECT_TRUE(b.build(&g).isOk());
  return g;
}

// Runs `g` on the CPU with input x and returns its first output.
Tensor runOnCpu(const std::shared_ptr<Graph>& g, const Tensor& x) {
  std::unique_ptr<Session> session;
  Status s = Session::create(g, SessionOptions{}, &session);
  EXPECT_TRUE(s.isOk()) << s.message();
  std::map<std::string, Tensor> outputs;
  if (s.isOk()) s = session->run({{"x", x}}, &outputs);
  EXPECT_TRUE(s.isOk()) << s.message();
  return s.isOk() ? outputs.at(g->outputs[0].name) : Tensor();
}

// ConvTranspose keeps output channel m's weights along W's second axis, per group.
TEST(FoldConvBatchNorm, ConvTransposeGivesTheSameNumbersAsUnfolded) {
  const Tensor x = randomTensorOf({1, 4, 5, 6}, 17, -2, 2);
  for (auto [group, outPerGroup] : {std::pair<int64_t, int64_t>{1, 5}, {2, 3}}) {
    auto unfolded = convTransposeBnGraph(group, outPerGroup);
    auto folded = std::make_shared<Graph>(*unfolded);
    int count = 0;
    ASSERT_TRUE(foldConvBatchNorm(folded.get(), &count).isOk());
    ASSERT_EQ(count, 1) << "group " << group;
    ASSERT_EQ(folded->nodes.size(), 1u);
    EXPECT_EQ(folded->nodes[0].opType, "ConvTranspose");
    const Tensor e = runOnCpu(unfolded, x), a = runOnCpu(folded, x);
    ASSERT_EQ(a.shape(), e.shape());
    for (int64_t i = 0; i < e.elementCount(); ++i)
      ASSERT_NEAR(a.data<float>()[i], e.data<float>()[i], 1e-5 + 1e-4 * std::fabs(e.data<float>()[i]))
          << "group " << group << " at " << i;
  }
}

// A bias exported as its own Add (ConvTranspose -> Add -> BN, as in PP-OCRv4 det): the Add
// folds into the bias first, then the BN folds into the ConvTranspose: one node is left.
TEST(FoldConvBatchNorm, ImporterFoldsABatchNormBehindABiasAdd) {
  GraphParts p;
  p.inputs.push_back(valueInfoProto("x", kOnnxFloat, {1, 2, 3, 3}));
  p.outputs.push_back(valueInfoProto("y", kOnnxFloat, {1, 2, 6, 6}));
  p.initializers.push_back(floatTensorProto("w", {2, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}));
  p.initializers.push_back(floatTensorProto("k", {1, 2, 1, 1}, {0.5f, -1}));
  p.initializers.push_back(floatTensorProto("scale", {2}, {2, 3}));
  p.initializers.push_back(floatTensorProto("shift", {2}, {0.5f, -1}));
  p.initializers.push_back(floatTensorProto("mean", {2}, {1, 2}));
  p.initializers.push_back(floatTensorProto("var", {2}, {4, 9}));
  p.nodes.push_back(nodeProto("ConvTranspose", {"x", "w"}, {"c"}, "ct", {intsAttribute("strides", {2, 2})}));
  p.nodes.push_back(nodeProto("Add", {"c", "k"}, {"a"}, "bias"));
  p.nodes.push_back(nodeProto("BatchNormalization", {"a", "scale", "shift", "mean", "var"}, {"y"}, "bn",
                              {floatAttribute("epsilon", 0.f)}));
  std::shared_ptr<Graph> g;
  Status s = loadBytes(modelBytes(p), &g);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].opType, "ConvTranspose");
  EXPECT_EQ(g->nodes[0].outputs[0], "y");
  // s = scale / sqrt(var) = {1, 1}; B' = (k - mean) * s + shift = {0, -4}.
  const Tensor& bias = g->initializers.at(g->nodes[0].inputs[2]);
  EXPECT_FLOAT_EQ(bias.data<float>()[0], 0.f);
  EXPECT_FLOAT_EQ(bias.data<float>()[1], -4.f);
}

TEST(FoldConvBatchNorm, GivesTheSameNumbersAsUnfolded) {
  for (const char* op : {"Conv", "BatchNormalization"}) {
    if (!ExecutionRegistry::instance().find(BackendType::kCPU, op)) {
      GTEST_SKIP() << op << " has no CPU execution in this build yet";
    }
  }
  auto unfolded = convBnGraph(false);
  auto folded = std::make_shared<Graph>(*unfolded);
  ASSERT_TRUE(foldConvBatchNorm(folded.get()).isOk());
  ASSERT_EQ(folded->nodes.size(), 1u);

  const Tensor x = randomTensorOf({1, 3, 7, 6}, 9, -2, 2);
  std::vector<Tensor> results;
  for (const auto& g : {unfolded, folded}) {
    std::unique_ptr<Session> session;
    Status s = Session::create(g, SessionOptions{}, &session);
    ASSERT_TRUE(s.isOk()) << s.message();
    std::map<std::string, Tensor> outputs;
    s = session->run({{"x", x}}, &outputs);
    ASSERT_TRUE(s.isOk()) << s.message();
    results.push_back(outputs.at(g->outputs[0].name));
  }
  ASSERT_EQ(results[0].shape(), results[1].shape());
  for (int64_t i = 0; i < results[0].elementCount(); ++i) {
    const float a = results[1].data<float>()[i], e = results[0].data<float>()[i];
    ASSERT_NEAR(a, e, 1e-5 + 1e-4 * std::fabs(e)) << "at " << i;
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
