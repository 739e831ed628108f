// OpenCL ConvTranspose (1-D and 2-D, f32, constant weights) on NC4HW4 tensors; grouped
// weights are packed dense with zeros across groups.
#include <vector>

#include "backends/opencl/ConvWeights.hpp"
#include "ops/Conv.hpp"
#include "tessera/Registry.hpp"
#include "kernels/conv.hpp"

namespace tessera {
namespace {

class OpenClConvTranspose final : public OpenClConvBase {
 public:
  WorkEstimate work(const Tensors& in, const Tensors& out) const override {
    return convTransposeWork(in, out);
  }
  OpenClConvTranspose(Backend* b, const ConvShape& s, std::vector<float> weight, std::vector<float> bias,
                      const FusedActivation& act)
      : OpenClConvBase(b), shape_(s), weight_(std::move(weight)), bias_(std::move(bias)), act_(act) {}

  // Constant weights and bias were packed on the host by the creator: the Session need not
  // upload the raw ones.
  bool readsConstantOnHost(size_t input) const override { return !weight_.empty() && (input == 1 || input == 2); }

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(available.size(), Layout::kNCHW);
    (*in)[0] = Layout::kNC4HW4;
    (*out)[0] = Layout::kNC4HW4;
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[0];
    const Tensor* y = outputs[0];
    const WindowGeometry g = shape_.window.padTo3D();
    const int64_t inC4 = (shape_.inChannels + 3) / 4, outC4 = (shape_.outChannels + 3) / 4;
    if (weight_.empty()) {  // weights computed in the graph: packed on the device each run
      const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
      TESSERA_RETURN_IF_ERROR(packOnDevice(inputs[1], bias, shape_.outChannels, shape_.inChannels, shape_.group,
                                           g.kernel[1] * g.kernel[2], inC4, outC4, false, true, &weightBuf_, &biasBuf_));
    } else {
      TESSERA_RETURN_IF_ERROR(cl()->createBuffer(weight_.size() * 4, weight_.data(), &weightBuf_, "ConvTranspose weights"));
      TESSERA_RETURN_IF_ERROR(cl()->createBuffer(bias_.size() * 4, bias_.data(), &biasBuf_, "ConvTranspose bias"));
    }
    const int64_t outH = g.output[1], outW = g.output[2];
    ClKernel* k = nullptr;
    KernelOptions o = KernelOptions().storage("src", x).storage("dst", y);
    if (act_.kind != FusedActivation::kNone)
      o.define("ACTIVATION", static_cast<long long>(act_.kind)).defineFloat("ACT_A", act_.alpha)
          .defineFloat("ACT_B", act_.beta);
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::conv::conv_transpose, o, &k));
    k->tensor(x).mem(weightBuf_.get()).mem(biasBuf_.get()).tensor(y).arg(inC4).arg(g.input[1]).arg(g.input[2]);
    k->arg(outC4).arg(outH).arg(outW).arg(g.kernel[1]).arg(g.kernel[2]).arg(g.stride[1]).arg(g.stride[2]);
    k->arg(g.padBegin[1]).arg(g.padBegin[2]).arg(g.dilation[1]).arg(g.dilation[2]).arg(shape_.batch * outH);
    k->arg(act_.scale).arg(act_.shift);  // after the activation
    return dispatch(k, {outC4 * outW, shape_.batch * outH});
  }

 private:
  ConvShape shape_;
  std::vector<float> weight_, bias_;
  FusedActivation act_;
  ClBuffer weightBuf_, biasBuf_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  const Tensor* x = inputs[0];
  const Tensor* w = inputs[1];
  const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
  if (x->dtype() != DataType::kF32 || w->dtype() != DataType::kF32) return nullptr;
  if (bias && bias->dtype() != DataType::kF32) return nullptr;
  if (x->rank() != 3 && x->rank() != 4) return nullptr;
  ConvParams p;
  if (!ConvParams::parse(node, &p).isOk()) return nullptr;
  ConvShape s;
  if (!resolveConvTranspose(p, x->shape(), w->shape(), &s).isOk()) return nullptr;
  if (s.outputShape() != outputs[0]->shape()) return nullptr;
  const WindowGeometry g = s.window.padTo3D();
  const int64_t M = s.outChannels, C = s.inChannels, group = s.group;
  const int64_t taps = g.kernel[1] * g.kernel[2];
  const int64_t inC4 = (C + 3) / 4, outC4 = (M + 3) / 4;
  const int64_t cg = C / group, mg = M / group;
  if (static_cast<double>(outC4) * inC4 * taps * 16 > 64e6) return nullptr;
  if (!w->data() || (bias && !bias->data()))  // packed on the device at run time
    return makeExecution<OpenClConvTranspose>(b, node, s, std::vector<float>(), std::vector<float>(), p.activation);
  // W: [C, M/group, k...] -> dense [outC4][inC4][taps][4 input lanes][4 output lanes].
  const float* wd = w->data<float>();
  std::vector<float> packed(outC4 * inC4 * taps * 16, 0.f);
  for (int64_t ic = 0; ic < C; ++ic) {
    const int64_t m0 = (ic / cg) * mg;
    for (int64_t mgi = 0; mgi < mg; ++mgi) {
      const int64_t oc = m0 + mgi;
      for (int64_t t = 0; t < taps; ++t)
        packed[(((oc / 4) * inC4 + ic / 4) * taps + t) * 16 + (ic % 4) * 4 + oc % 4] = wd[(ic * mg + mgi) * taps + t];
    }
  }
  std::vector<float> b4(outC4 * 4, 0.f);
  if (bias)
    for (int64_t oc = 0; oc < M && oc < bias->elementCount(); ++oc) b4[oc] = bias->data<float>()[oc];
  return makeExecution<OpenClConvTranspose>(b, node, s, std::move(packed), std::move(b4), p.activation);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, ConvTranspose, create);

}  // namespace tessera
