// Vulkan RNN, GRU and LSTM (semantics: ops/Recurrent.hpp), in two dispatches recorded at
// resize. recurrent_project.comp computes x W^T + biases for every step, batch entry,
// direction and gate at once (2*seq*batch*D*G*H*input flops, all parallel) into a scratch
// buffer; recurrent.comp then runs one work-group per (direction, batch entry) that walks
// the steps inside the kernel (2*seq*D*batch*G*H*H flops, sequential over the steps), the
// hidden state in shared memory. W, R, B, the states and P are read from the device tensors,
// constant or fed at run time. fp16 storage works as elsewhere (fp32 arithmetic; the
// projection and the state stay fp32 between steps, only Y, Y_h and Y_c are rounded).
// On a driver that ends an invocation's loops after a number of iterations (lavapipe), the
// steps are split over as many recurrent.comp dispatches as that limit needs, the state
// carried between them in a second scratch buffer.
#include <algorithm>

#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Recurrent.hpp"
#include "vulkan/shaders/recurrent.hpp"
#include "vulkan/shaders/recurrent_project.hpp"

namespace tessera {
namespace {

constexpr int64_t kMaxHidden = 1024;  // recurrent.comp's MAX_H (its shared arrays)

// Loop iterations one invocation of recurrent.comp runs per step, a bound: its units' gate
// dot products (G of length H each), their per-unit loops, and a few more.
int64_t iterationsPerStep(const RecurrentParams& p, int64_t H) {
  const int64_t units = (H + vkops::kWorkGroupSize - 1) / vkops::kWorkGroupSize;
  return units * (p.gates() * H + 8) + 8;
}

// Steps one dispatch may walk under the driver's loop limit (0: not even one; no limit: all).
int64_t stepsPerDispatch(const VulkanDeviceInfo& info, const RecurrentParams& p, int64_t H, int64_t seq) {
  if (info.invocationLoopLimit == 0) return std::max<int64_t>(seq, 1);
  // The state's loads and stores and the Y zeros past a length add at most one step's worth.
  return info.invocationLoopLimit / iterationsPerStep(p, H) - 1;
}

const Tensor* optional(const Tensors& ts, int i) {
  return static_cast<size_t>(i) < ts.size() && ts[i] && ts[i]->elementCount() > 0 ? ts[i] : nullptr;
}

// recurrent.comp's flags.
constexpr uint32_t kBatchMajor = 1, kHasBias = 2, kHasLens = 4, kLensI64 = 8, kHasH0 = 16, kHasC0 = 32, kHasP = 64,
                   kWantY = 128, kWantYh = 256, kWantYc = 512, kLinearBeforeReset = 1024, kInputForget = 2048,
                   kHasClip = 4096, kReversed0 = 8192, kReversed1 = 16384;

class VulkanRecurrent final : public VulkanExecution {
 public:
  VulkanRecurrent(Backend* b, const Node& n, const RecurrentParams& p) : VulkanExecution(b, n.label()), params_(p) {
    for (size_t i = 0; i < 3; ++i) want_[i] = i < n.outputs.size() && !n.outputs[i].empty();
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    const Tensor* x = in[kRnnX];
    const bool batchMajor = params_.layout == 1;
    const int64_t seq = x->dim(batchMajor ? 1 : 0), batch = x->dim(batchMajor ? 0 : 1), input = x->dim(2);
    const int64_t D = params_.numDirections(), H = in[kRnnR]->dim(2), GH = params_.gates() * H;
    if (batch == 0) return Status::ok();
    const bool lbr = params_.kind == RecurrentKind::kGru && params_.linearBeforeReset;
    const Tensor* bias = optional(in, kRnnB);
    const VulkanBinding w = VulkanBackend::binding(in[kRnnW]), r = VulkanBackend::binding(in[kRnnR]);
    const VulkanBinding b = bias ? VulkanBackend::binding(bias) : w;  // absent: any buffer, unread

    const int64_t rows = seq * batch, projected = rows * D * GH;
    VulkanBinding xw;
    TESSERA_RETURN_IF_ERROR(vk().planDeviceBuffer(static_cast<VkDeviceSize>(std::max<int64_t>(projected, 1)) * 4, &xw));
    if (projected > 0)
      TESSERA_RETURN_IF_ERROR(dispatch(vkshaders::recurrent_project, {VulkanBackend::binding(x), w, b, xw},
                                       {vkops::u32(projected), vkops::u32(input), vkops::u32(D * GH), vkops::u32(GH),
                                        bias ? 1u : 0u, vkops::u32(lbr ? 2 * H : GH)},
                                       projected));

    uint32_t flags = (batchMajor ? kBatchMajor : 0u) | (bias ? kHasBias : 0) | (lbr ? kLinearBeforeReset : 0) |
                     (params_.inputForget ? kInputForget : 0) | (params_.hasClip ? kHasClip : 0) |
                     (params_.reversed(0) ? kReversed0 : 0) | (params_.reversed(1) ? kReversed1 : 0);
    // Absent inputs bind R (never read), absent outputs the scratch buffer (never written).
    auto input_ = [&](int i, uint32_t flag) {
      const Tensor* t = optional(in, i);
      if (t) flags |= flag;
      return t ? VulkanBackend::binding(t) : r;
    };
    auto output = [&](int i, uint32_t flag) {
      const bool use = want_[i] && static_cast<size_t>(i) < out.size() && out[i] && out[i]->elementCount() > 0;
      if (use) flags |= flag;
      return use ? VulkanBackend::binding(out[i]) : xw;
    };
    const bool lstm = params_.kind == RecurrentKind::kLstm;
    const VulkanBinding lens = input_(kRnnSequenceLens, kHasLens);
    if (optional(in, kRnnSequenceLens) && in[kRnnSequenceLens]->dtype() == DataType::kI64) flags |= kLensI64;
    const VulkanBinding h0 = input_(kRnnInitialH, kHasH0);
    const VulkanBinding c0 = lstm ? input_(kRnnInitialC, kHasC0) : r;
    const VulkanBinding p = lstm ? input_(kRnnP, kHasP) : r;
    const VulkanBinding y = output(0, kWantY), yh = output(1, kWantYh), yc = lstm ? output(2, kWantYc) : xw;

    std::vector<uint32_t> pc = {vkops::u32(seq), vkops::u32(batch), vkops::u32(H), vkops::u32(D), flags,
                                floatBits(params_.clip), 0};
    const int functions = params_.functionsPerDirection() * params_.numDirections();
    for (int f = 0; f < functions; ++f) pc[6] |= static_cast<uint32_t>(params_.activations[f].kind) << (4 * f);
    for (int f = 0; f < 6; ++f) pc.push_back(floatBits(f < functions ? params_.activations[f].alpha : 0.f));
    for (int f = 0; f < 6; ++f) pc.push_back(floatBits(f < functions ? params_.activations[f].beta : 0.f));
    pc.push_back(vkops::u32(params_.functionsPerDirection()));
    const vkshaders::ShaderId shader = params_.kind == RecurrentKind::kRnn   ? vkshaders::recurrent_RNN
                                       : params_.kind == RecurrentKind::kGru ? vkshaders::recurrent_GRU
                                                                             : vkshaders::recurrent_LSTM;
    const int64_t steps = stepsPerDispatch(vk().context().info(), params_, H, seq);
    if (steps < 1)
      return Status::unsupported(label() + ": hidden size " + std::to_string(H) + " exceeds the driver's loop limit");
    VulkanBinding carried = xw;  // one dispatch: never touched
    if (steps < seq)
      TESSERA_RETURN_IF_ERROR(vk().planDeviceBuffer(static_cast<VkDeviceSize>(D * batch * 2 * H) * 4, &carried));
    pc.push_back(0);
    pc.push_back(0);
    for (int64_t first = 0; first < std::max<int64_t>(seq, 1); first += steps) {
      pc[20] = vkops::u32(first);
      pc[21] = vkops::u32(std::min(seq, first + steps));
      TESSERA_RETURN_IF_ERROR(dispatch(shader, {xw, r, b, lens, h0, c0, p, y, yh, yc, carried}, pc,
                                       D * batch * vkops::kWorkGroupSize));  // a work-group per (direction, entry)
    }
    return Status::ok();
  }

 private:
  RecurrentParams params_;
  bool want_[3] = {false, false, false};
};

// Shared memory of recurrent.comp's build for `kind` (bytes).
int64_t sharedBytes(RecurrentKind kind) {
  return (kind == RecurrentKind::kRnn ? 2 : kind == RecurrentKind::kLstm ? 3 : 4) * kMaxHidden * 4;
}

TESSERA_VK_CREATOR(createRecurrent) {
  RecurrentParams p;
  if (!RecurrentParams::parse(node, &p).isOk() || inputs.size() < 3) return nullptr;
  if (!inputs[kRnnX] || !inputs[kRnnW] || !inputs[kRnnR] || inputs[kRnnX]->rank() != 3 || inputs[kRnnR]->rank() != 3)
    return nullptr;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i] && i != kRnnSequenceLens && inputs[i]->dtype() != DataType::kF32) return nullptr;
  if (!allFloat32(outputs) || !vkops::fits32(inputs) || !vkops::fits32(outputs)) return nullptr;
  const Tensor* x = inputs[kRnnX];
  const int64_t H = inputs[kRnnR]->dim(2), seq = x->dim(p.layout == 1 ? 1 : 0);
  const int64_t projected = x->dim(0) * x->dim(1) * p.numDirections() * p.gates() * H;
  if (H > kMaxHidden || projected >= (int64_t(1) << 31)) return nullptr;
  if (stepsPerDispatch(static_cast<VulkanBackend*>(b)->context().info(), p, H, seq) < 1) return nullptr;
  if (sharedBytes(p.kind) > static_cast<VulkanBackend*>(b)->context().info().limits.maxComputeSharedMemorySize)
    return nullptr;
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
  return std::make_unique<VulkanRecurrent>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, RNN, createRecurrent);
TESSERA_REGISTER_EXECUTION(kVulkan, GRU, createRecurrent);
TESSERA_REGISTER_EXECUTION(kVulkan, LSTM, createRecurrent);

}  // namespace tessera
