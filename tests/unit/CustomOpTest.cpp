// Custom op types and custom kernels registered at run time (CPU side).
#include <gtest/gtest.h>

#include "support/OpTest.hpp"
#include "tessera/CustomOp.hpp"

namespace tessera {
namespace {

// y = x * factor, factor an attribute read by name.
class ScaleKernel final : public Execution {
 public:
  ScaleKernel(Backend* b, float factor) : Execution(b), factor_(factor) {}
  Status onExecute(const Tensors& in, const Tensors& out) override {
    for (int64_t i = 0; i < in[0]->elementCount(); ++i)
      out[0]->data<float>()[i] = in[0]->data<float>()[i] * factor_;
    return Status::ok();
  }

 private:
  float factor_;
};

// Writes a constant: shows which kernel ran.
class FillKernel final : public Execution {
 public:
  FillKernel(Backend* b, float value) : Execution(b), value_(value) {}
  Status onExecute(const Tensors&, const Tensors& out) override {
    for (int64_t i = 0; i < out[0]->elementCount(); ++i) out[0]->data<float>()[i] = value_;
    return Status::ok();
  }

 private:
  float value_;
};

Status sameShape(ShapeContext& ctx) {
  if (!ctx.input(0)) return ctx.error("input 0 is missing");
  ctx.output(0) = Tensor(ctx.input(0)->shape(), ctx.input(0)->dtype());
  return Status::ok();
}

std::shared_ptr<Graph> oneNode(const std::string& domain, const std::string& op, Attributes attrs) {
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", DataType::kF32, {2, 3}, true});
  Node n;
  n.name = "n";
  n.domain = domain;
  n.opType = op;
  n.inputs = {"x"};
  n.outputs = {"y"};
  n.attrs = std::move(attrs);
  g->nodes.push_back(n);
  g->outputs.push_back({"y", DataType::kF32, {}, false});
  EXPECT_TRUE(g->validate().isOk());
  return g;
}

Tensor runGraph(std::shared_ptr<Graph> g, SessionOptions o, const Tensor& x, Status* st) {
  std::unique_ptr<Session> s;
  *st = Session::create(g, o, &s);
  if (!st->isOk()) return {};
  std::map<std::string, Tensor> out;
  *st = s->run({{"x", x}}, &out);
  return st->isOk() ? out["y"] : Tensor();
}

TEST(CustomOp, NewOpTypeWithAttributesRuns) {
  ASSERT_TRUE(registerCustomOp("com.example", "Scale", sameShape).isOk());
  CustomKernel k;
  k.provider = "example";
  k.domain = "com.example";
  k.opType = "Scale";
  k.dtype = DataType::kF32;
  k.create = [](Backend* b, const Node& n, const Tensors&, const Tensors&) -> std::unique_ptr<Execution> {
    return std::make_unique<ScaleKernel>(b, n.attrs.getFloat("factor", 1.f));
  };
  ASSERT_TRUE(registerCustomKernel(k).isOk());
  Attributes a;
  a.setFloat("factor", 2.5f);
  Tensor x = test::randomTensor({2, 3}, 1);
  Status st;
  Tensor y = runGraph(oneNode("com.example", "Scale", a), SessionOptions{}, x, &st);
  ASSERT_TRUE(st.isOk()) << st.message();
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(y.data<float>()[i], 2.5f * x.data<float>()[i]);
}

TEST(CustomOp, ProviderKernelTakesPrecedenceOnlyWhenSelected) {
  CustomKernel k;
  k.provider = "fill42";
  k.opType = "Relu";
  k.create = [](Backend* b, const Node&, const Tensors&, const Tensors&) -> std::unique_ptr<Execution> {
    return std::make_unique<FillKernel>(b, 42.f);
  };
  ASSERT_TRUE(registerCustomKernel(k).isOk());
  Tensor x = test::tensorFrom({2, 3}, {-1, 2, -3, 4, -5, 6});
  Status st;
  Tensor builtin = runGraph(oneNode("", "Relu", {}), SessionOptions{}, x, &st);
  ASSERT_TRUE(st.isOk()) << st.message();
  EXPECT_EQ(builtin.data<float>()[1], 2.f);
  EXPECT_EQ(builtin.data<float>()[0], 0.f);
  SessionOptions o;
  o.providers = {"fill42"};
  Tensor custom = runGraph(oneNode("", "Relu", {}), o, x, &st);
  ASSERT_TRUE(st.isOk()) << st.message();
  EXPECT_EQ(custom.data<float>()[0], 42.f);
}

TEST(CustomOp, ClearErrors) {
  CustomKernel k;
  k.provider = "dup";
  k.opType = "Sigmoid";
  k.dtype = DataType::kF32;
  k.create = [](Backend* b, const Node&, const Tensors&, const Tensors&) -> std::unique_ptr<Execution> {
    return std::make_unique<FillKernel>(b, 0.f);
  };
  ASSERT_TRUE(registerCustomKernel(k).isOk());
  Status st = registerCustomKernel(k);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("already registered"), std::string::npos) << st.message();

  st = registerCustomOp("com.example", "NoShape", nullptr);
  EXPECT_NE(st.message().find("no shape function"), std::string::npos) << st.message();
  st = registerCustomOp("", "Conv", sameShape);
  EXPECT_NE(st.message().find("already exists"), std::string::npos) << st.message();
  CustomKernel noProvider = k;
  noProvider.provider.clear();
  EXPECT_NE(registerCustomKernel(noProvider).message().find("no provider"), std::string::npos);

  // A custom op type with a shape function but no kernel anywhere: a clear error at run.
  ASSERT_TRUE(registerCustomOp("com.example", "NoKernel", sameShape).isOk());
  Tensor x = test::randomTensor({2, 3}, 2);
  runGraph(oneNode("com.example", "NoKernel", {}), SessionOptions{}, x, &st);
  EXPECT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_NE(st.message().find("NoKernel 'n'"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace tessera
