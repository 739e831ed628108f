// OpenCL RNN, GRU and LSTM (semantics: ops/Recurrent.hpp) on plain f32 buffers, in two
// kernels set up at resize (shaders/opencl/recurrent.cl): recurrent_project computes
// x W^T + biases for every step, batch entry, direction and gate at once
// (2*seq*batch*D*G*H*input flops, all parallel) into a scratch buffer; recurrent_<kind> then
// runs one work-group per (direction, batch entry) that walks the steps inside the kernel
// (2*seq*D*batch*G*H*H flops, sequential over the steps), the hidden state in local memory.
// W, R, B, the states and P are read from the device tensors, constant or fed at run time.
#include <algorithm>

#include "backends/opencl/OpenClExecution.hpp"
#include "ops/Recurrent.hpp"
#include "tessera/Registry.hpp"
#include "kernels/recurrent.hpp"

namespace tessera {
namespace {

constexpr int64_t kMaxHidden = 1024;  // recurrent.cl's MAX_H (its local arrays: 16 KiB at most)
constexpr size_t kGroupSize = 64;     // items per work-group

const Tensor* optional(const Tensors& ts, int i) {
  return static_cast<size_t>(i) < ts.size() && ts[i] && ts[i]->elementCount() > 0 ? ts[i] : nullptr;
}

// recurrent.cl's flags.
constexpr cl_uint kBatchMajor = 1, kHasBias = 2, kHasLens = 4, kLensI64 = 8, kHasH0 = 16, kHasC0 = 32, kHasP = 64,
                  kWantY = 128, kWantYh = 256, kWantYc = 512, kLinearBeforeReset = 1024, kInputForget = 2048,
                  kHasClip = 4096, kReversed0 = 8192, kReversed1 = 16384;

class OpenClRecurrent final : public OpenClExecution {
 public:
  OpenClRecurrent(Backend* b, const Node& n, const RecurrentParams& p) : OpenClExecution(b), params_(p) {
    for (size_t i = 0; i < 3; ++i) want_[i] = i < n.outputs.size() && !n.outputs[i].empty();
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    clearKernels();
    const Tensor* x = in[kRnnX];
    const bool batchMajor = params_.layout == 1;
    const int64_t seq = x->dim(batchMajor ? 1 : 0), batch = x->dim(batchMajor ? 0 : 1), input = x->dim(2);
    const int64_t D = params_.numDirections(), H = in[kRnnR]->dim(2), GH = params_.gates() * H;
    if (batch == 0) return Status::ok();
    const bool lbr = params_.kind == RecurrentKind::kGru && params_.linearBeforeReset;
    const Tensor* bias = optional(in, kRnnB);
    const cl_mem r = OpenClBackend::storage(in[kRnnR])->mem;
    const cl_mem b = bias ? OpenClBackend::storage(bias)->mem : r;  // absent: any buffer, unread

    const int64_t projected = seq * batch * D * GH;
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(static_cast<size_t>(std::max<int64_t>(projected, 1)) * 4, nullptr,
                                               &xw_, "RNN projected inputs"));
    KernelOptions o;
    o.define("WG_SIZE", static_cast<long long>(kGroupSize));
    ClKernel* k = nullptr;
    if (projected > 0) {
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::recurrent::recurrent_project, o, &k));
      k->tensor(x).tensor(in[kRnnW]).mem(b).mem(xw_.get()).arg(projected).arg(input).arg(D * GH).arg(GH);
      k->arg(static_cast<cl_int>(bias ? 1 : 0)).arg(lbr ? 2 * H : GH);
      TESSERA_RETURN_IF_ERROR(dispatch(k, {projected}));
    }

    cl_uint flags = (batchMajor ? kBatchMajor : 0u) | (bias ? kHasBias : 0u) | (lbr ? kLinearBeforeReset : 0u) |
                    (params_.inputForget ? kInputForget : 0u) | (params_.hasClip ? kHasClip : 0u) |
                    (params_.reversed(0) ? kReversed0 : 0u) | (params_.reversed(1) ? kReversed1 : 0u);
    // Absent inputs pass R (never read), absent outputs the scratch buffer (never written).
    const bool lstm = params_.kind == RecurrentKind::kLstm;
    auto input_ = [&](int i, cl_uint flag) {
      const Tensor* t = lstm || i < kRnnInitialC ? optional(in, i) : nullptr;
      if (t) flags |= flag;
      return t ? OpenClBackend::storage(t)->mem : r;
    };
    auto output = [&](int i, cl_uint flag) {
      const bool use = (lstm || i < 2) && want_[i] && static_cast<size_t>(i) < out.size() && out[i] &&
                       out[i]->elementCount() > 0;
      if (use) flags |= flag;
      return use ? OpenClBackend::storage(out[i])->mem : xw_.get();
    };
    const cl_mem lens = input_(kRnnSequenceLens, kHasLens), h0 = input_(kRnnInitialH, kHasH0),
                 c0 = input_(kRnnInitialC, kHasC0), p = input_(kRnnP, kHasP);
    if (optional(in, kRnnSequenceLens) && in[kRnnSequenceLens]->dtype() == DataType::kI64) flags |= kLensI64;
    const cl_mem y = output(0, kWantY), yh = output(1, kWantYh), yc = output(2, kWantYc);

    cl_uint kinds = 0;
    cl_float8 alphas{}, betas{};
    const int functions = params_.functionsPerDirection() * params_.numDirections();
    for (int f = 0; f < functions; ++f) {
      kinds |= static_cast<cl_uint>(params_.activations[f].kind) << (4 * f);
      alphas.s[f] = params_.activations[f].alpha;
      betas.s[f] = params_.activations[f].beta;
    }
    const opencl::KernelId& id = params_.kind == RecurrentKind::kRnn   ? opencl::kernels::recurrent::recurrent_rnn
                                 : params_.kind == RecurrentKind::kGru ? opencl::kernels::recurrent::recurrent_gru
                                                                       : opencl::kernels::recurrent::recurrent_lstm;
    TESSERA_RETURN_IF_ERROR(addKernel(id, o, &k));
    k->mem(xw_.get()).mem(r).mem(b).mem(lens).mem(h0).mem(c0).mem(p).mem(y).mem(yh).mem(yc);
    k->arg(seq).arg(batch).arg(H).arg(D).arg(flags).arg(static_cast<cl_float>(params_.clip)).arg(kinds);
    k->arg(alphas).arg(betas).arg(static_cast<int64_t>(params_.functionsPerDirection()));
    return dispatchGroups(k, D * batch, kGroupSize);
  }

 private:
  RecurrentParams params_;
  bool want_[3] = {false, false, false};
  ClBuffer xw_;  // [seq*batch rows in X's order, D, G*H]
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  RecurrentParams p;
  if (!RecurrentParams::parse(node, &p).isOk() || inputs.size() < 3) return nullptr;
  if (!inputs[kRnnX] || !inputs[kRnnW] || !inputs[kRnnR] || inputs[kRnnX]->rank() != 3 || inputs[kRnnR]->rank() != 3)
    return nullptr;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i] && i != kRnnSequenceLens && inputs[i]->dtype() != DataType::kF32) return nullptr;
  for (const Tensor* t : outputs)
    if (t && t->dtype() != DataType::kF32) return nullptr;
  const Tensor* x = inputs[kRnnX];
  const int64_t H = inputs[kRnnR]->dim(2), seq = x->dim(p.layout == 1 ? 1 : 0);
  const int64_t projected = x->dim(0) * x->dim(1) * p.numDirections() * p.gates() * H;
  if (H > kMaxHidden || projected >= (int64_t(1) << 31)) return nullptr;
  for (const Tensor* t : inputs)
    if (t && t->elementCount() >= (int64_t(1) << 31)) return nullptr;
  for (const Tensor* t : outputs)
    if (t && t->elementCount() >= (int64_t(1) << 31)) return nullptr;
  if (static_cast<OpenClBackend*>(b)->device().maxWorkGroupSize < kGroupSize) return nullptr;
  // Constant lengths are checked here (out of range: the CPU reports the error); run-time
  // ones are clamped by the kernel.
  if (const Tensor* lens = optional(inputs, kRnnSequenceLens)) {
    if (lens->dtype() != DataType::kI32 && lens->dtype() != DataType::kI64) return nullptr;
    if (lens->isConstant() && lens->data())
      for (int64_t i = 0; i < lens->elementCount(); ++i) {
        const int64_t n = lens->dtype() == DataType::kI64 ? lens->data<int64_t>()[i] : lens->data<int32_t>()[i];
        if (n < 0 || n > seq) return nullptr;
      }
  }
  return makeExecution<OpenClRecurrent>(b, node, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, RNN, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, GRU, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, LSTM, create);

}  // namespace tessera
