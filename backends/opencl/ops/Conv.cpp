// OpenCL Conv (1-D and 2-D, f32, constant weights, Z and a fused activation) on NC4HW4 tensors:
// plain, strided, dilated, padded and grouped convolutions through one kernel (grouped weights packed dense
// with zeros across groups), depthwise (group == C == M) through its own kernel.
#include <string>
#include <vector>

#include "backends/opencl/ConvWeights.hpp"
#include "core/src/SplitReduction.hpp"
#include "ops/Conv.hpp"
#include "tessera/Registry.hpp"
#include "kernels/conv.hpp"

namespace tessera {
namespace {

class OpenClConv final : public OpenClConvBase {
 public:
  WorkEstimate work(const Tensors& in, const Tensors& out) const override {
    return convWork(in, out);
  }
  OpenClConv(Backend* b, const ConvShape& s, std::vector<float> weight, std::vector<float> bias, bool depthwise,
             FusedActivation act)
      : OpenClConvBase(b), shape_(s), weight_(std::move(weight)), bias_(std::move(bias)), depthwise_(depthwise),
        act_(act) {}

  // Constant weights and bias were packed on the host by the creator: the Session need not
  // upload the raw ones.
  bool readsConstantOnHost(size_t input) const override { return !weight_.empty() && (input == 1 || input == 2); }

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(available.size(), Layout::kNCHW);
    (*in)[0] = Layout::kNC4HW4;
    (*out)[0] = Layout::kNC4HW4;
    if (available.size() > kConvSumInput) (*in)[kConvSumInput] = Layout::kNC4HW4;  // Z: read as y is written
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[0];
    const Tensor* y = outputs[0];
    const WindowGeometry g = shape_.window.padTo3D();
    const int64_t inC4 = (shape_.inChannels + 3) / 4, outC4 = (shape_.outChannels + 3) / 4;
    const int64_t taps = g.kernel[1] * g.kernel[2];
    if (weight_.empty()) {  // weights computed in the graph: packed on the device each run
      const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
      TESSERA_RETURN_IF_ERROR(packOnDevice(inputs[1], bias, shape_.outChannels, shape_.inChannels, shape_.group,
                                           taps, inC4, outC4, depthwise_, false, &weightBuf_, &biasBuf_));
    } else {
      TESSERA_RETURN_IF_ERROR(cl()->createBuffer(weight_.size() * 4, weight_.data(), &weightBuf_, "Conv weights"));
      TESSERA_RETURN_IF_ERROR(cl()->createBuffer(bias_.size() * 4, bias_.data(), &biasBuf_, "Conv bias"));
    }
    const int64_t inH = g.input[1], inW = g.input[2], outH = g.output[1], outW = g.output[2];
    ClKernel* k = nullptr;
    const Tensor* z = convSumInput(inputs);
    KernelOptions o = KernelOptions().storage("src", x).storage("dst", y).storage("src1", z ? z : x);  // x: unread
    if (z) o.define("HAS_Z");
    if (act_.kind != FusedActivation::kNone)
      o.define("ACTIVATION", static_cast<long long>(act_.kind)).defineFloat("ACT_A", act_.alpha)
          .defineFloat("ACT_B", act_.beta);
    // Few output tiles and a long reduction: the reduction split over work-items (core/src/SplitReduction.hpp).
    const int64_t tiles = shape_.batch * outH * outC4 * ((outW + 3) / 4);
    const int lanes = depthwise_ ? 1 : splitReductionLanes(tiles, inC4 * taps, cl()->deviceKind(), "TESSERA_OPENCL_SPLIT");
    const auto kernel = depthwise_ ? opencl::kernels::conv::depthwise
                                   : lanes > 1 ? opencl::kernels::conv::conv2d_split : opencl::kernels::conv::conv2d;
    TESSERA_RETURN_IF_ERROR(addKernel(kernel, o, &k));
    k->tensor(x).mem(weightBuf_.get()).mem(biasBuf_.get()).tensor(y).tensor(z ? z : x).arg(inC4);
    k->arg(inH).arg(inW);
    if (!depthwise_) k->arg(outC4);
    k->arg(outH).arg(outW).arg(g.kernel[1]).arg(g.kernel[2]).arg(g.stride[1]).arg(g.stride[2]);
    k->arg(g.padBegin[1]).arg(g.padBegin[2]).arg(g.dilation[1]).arg(g.dilation[2]);
    if (lanes > 1) {
      k->arg(tiles).arg(lanes).arg(act_.scale).arg(act_.shift);
      countSplitReductionPlan();
      return dispatchGroups(k, (tiles * lanes + 63) / 64, 64);
    }
    k->arg(shape_.batch * outH);
    k->arg(act_.scale).arg(act_.shift);  // after the activation
    if (depthwise_) return dispatch(k, {outC4 * outW, shape_.batch * outH});
    return dispatch(k, {outC4 * ((outW + 3) / 4), shape_.batch * outH});  // 4 columns per item
  }

 private:
  ConvShape shape_;
  std::vector<float> weight_, bias_;
  bool depthwise_;
  FusedActivation act_;
  ClBuffer weightBuf_, biasBuf_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
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
  if (!resolveConv(p, x->shape(), w->shape(), &s).isOk()) return nullptr;
  const WindowGeometry g = s.window.padTo3D();
  const int64_t M = s.outChannels, C = s.inChannels, group = s.group;
  const int64_t kH = g.kernel[1], kW = g.kernel[2], taps = kH * kW;
  const int64_t inC4 = (C + 3) / 4, outC4 = (M + 3) / 4;
  const bool depthwise = group == C && M == C && group > 1;
  if (static_cast<double>(outC4) * inC4 * taps * 16 > 64e6 && !depthwise) return nullptr;  // too large dense
  if (!w->data() || (bias && !bias->data()))  // packed on the device at run time
    return makeExecution<OpenClConv>(b, node, s, std::vector<float>(), std::vector<float>(), depthwise, p.activation);
  const float* wd = w->data<float>();
  std::vector<float> packed;
  if (depthwise) {
    packed.assign(outC4 * taps * 4, 0.f);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t t = 0; t < taps; ++t) packed[((c / 4) * taps + t) * 4 + c % 4] = wd[c * taps + t];
  } else {
    // Dense [outC4][inC4][taps][4 input lanes][4 output lanes]; zeros across groups.
    const int64_t cg = C / group, mg = M / group;
    packed.assign(outC4 * inC4 * taps * 16, 0.f);
    for (int64_t oc = 0; oc < M; ++oc) {
      const int64_t g0 = (oc / mg) * cg;
      for (int64_t icg = 0; icg < cg; ++icg) {
        const int64_t ic = g0 + icg;
        for (int64_t t = 0; t < taps; ++t)
          packed[(((oc / 4) * inC4 + ic / 4) * taps + t) * 16 + (ic % 4) * 4 + oc % 4] = wd[(oc * cg + icg) * taps + t];
      }
    }
  }
  std::vector<float> b4(outC4 * 4, 0.f);
  if (bias)
    for (int64_t oc = 0; oc < M && oc < bias->elementCount(); ++oc) b4[oc] = bias->data<float>()[oc];
  return makeExecution<OpenClConv>(b, node, s, std::move(packed), std::move(b4), depthwise, p.activation);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Conv, create);

}  // namespace tessera
