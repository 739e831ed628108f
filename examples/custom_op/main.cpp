// An op Tessera does not know, added from outside: com.example::ScaledTanh,
// y = alpha * tanh(beta * x). Registers its shape function and a CPU kernel, loads an ONNX
// model that uses it, runs it and checks the result against a plain loop.
//   custom_op MODEL.onnx        (exit 0 when every backend present agrees)
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "tessera/OnnxImporter.hpp"
#include "tessera/Tessera.hpp"

namespace {

using tessera::Status;

struct ScaledTanhParams {
  float alpha, beta;
  static ScaledTanhParams from(const tessera::Node& n) {
    return {n.attrs.getFloat("alpha", 1.f), n.attrs.getFloat("beta", 1.f)};
  }
};

Status scaledTanhShape(tessera::ShapeContext& ctx) {
  const tessera::Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'X' is missing");
  if (x->dtype() != tessera::DataType::kF32) return ctx.error("input 'X' must be f32");
  ctx.output(0) = tessera::Tensor(x->shape(), x->dtype());
  return Status::ok();
}

class CpuScaledTanh final : public tessera::Execution {
 public:
  CpuScaledTanh(tessera::Backend* b, ScaledTanhParams p) : Execution(b), p_(p) {}
  Status onExecute(const tessera::Tensors& in, const tessera::Tensors& out) override {
    const float* x = in[0]->data<float>();
    float* y = out[0]->data<float>();
    for (int64_t i = 0; i < in[0]->elementCount(); ++i) y[i] = p_.alpha * std::tanh(p_.beta * x[i]);
    return Status::ok();
  }

 private:
  ScaledTanhParams p_;
};

Status registerScaledTanh() {
  TESSERA_RETURN_IF_ERROR(tessera::registerCustomOp("com.example", "ScaledTanh", scaledTanhShape));
  tessera::CustomKernel cpu;
  cpu.backend = tessera::BackendType::kCPU;
  cpu.provider = "example";
  cpu.domain = "com.example";
  cpu.opType = "ScaledTanh";
  cpu.dtype = tessera::DataType::kF32;
  cpu.create = [](tessera::Backend* b, const tessera::Node& n, const tessera::Tensors&,
                  const tessera::Tensors&) -> std::unique_ptr<tessera::Execution> {
    return std::make_unique<CpuScaledTanh>(b, ScaledTanhParams::from(n));
  };
  return tessera::registerCustomKernel(cpu);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: custom_op MODEL.onnx\n");
    return 2;
  }
  Status st = registerScaledTanh();
  std::shared_ptr<tessera::Graph> graph;
  if (st.isOk()) st = tessera::loadOnnxModel(argv[1], &graph);
  if (!st.isOk()) {
    std::fprintf(stderr, "custom_op: %s\n", st.message().c_str());
    return 1;
  }
  tessera::Tensor x = tessera::Tensor::hostAllocate({2, 3, 5, 7}, tessera::DataType::kF32);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  for (int64_t i = 0; i < x.elementCount(); ++i) x.data<float>()[i] = dist(rng);

  int failures = 0;
  for (tessera::BackendType backend : tessera::BackendRegistry::instance().types()) {
    tessera::SessionOptions options;
    options.backends = {backend};
    std::unique_ptr<tessera::Session> session;
    std::map<std::string, tessera::Tensor> out;
    st = tessera::Session::create(graph, options, &session);
    if (!st.isOk()) {
      std::printf("SKIP %s: %s\n", tessera::backendTypeName(backend), st.message().c_str());
      continue;
    }
    st = session->run({{"x", x}}, &out);
    if (!st.isOk()) {
      std::printf("FAIL %s: %s\n", tessera::backendTypeName(backend), st.message().c_str());
      ++failures;
      continue;
    }
    double worst = 0;
    const float* y = out["y"].data<float>();
    for (int64_t i = 0; i < x.elementCount(); ++i) {
      const double expect = std::max(0.0, 1.5 * std::tanh(0.75 * x.data<float>()[i]));
      worst = std::max(worst, std::fabs(y[i] - expect));
    }
    std::string ranOn;
    for (const auto& n : session->report().nodes)
      ranOn += " " + n.opType + "@" + tessera::backendTypeName(n.backend);
    const bool ok = worst <= 1e-5;
    failures += ok ? 0 : 1;
    std::printf("%s %s: max error %.2g;%s\n", ok ? "PASS" : "FAIL", tessera::backendTypeName(backend), worst,
                ranOn.c_str());
  }
  return failures == 0 ? 0 : 1;
}
