// CPU ConvTranspose.
//
// Where taps of different input positions meet (kernel > stride), one GEMM per output phase
// (ConvTransposePhases). When no two taps of any two input positions meet (kernel <= stride,
// the 2x2 stride-2 upsampling of segmentation heads), tiles of input positions run in
// parallel, each a GEMM ([positions x C/group] times the group's packed weights) whose
// products go straight into y (see runDisjoint). The 2x2 stride-2 case itself, NC4HW4 in and
// out, has a kernel of its own (ConvTransposeUpsample). 4-D tensors run on NC4HW4, other
// ranks on NCHW. A fused activation (tools/onnx/FuseConvActivation) is applied to each
// output region as it is finished.
#include <algorithm>
#include <vector>

#include "backends/cpu/ConvTransposeFewOutputs.hpp"
#include "backends/cpu/ConvTransposePhases.hpp"
#include "backends/cpu/CacheAligned.hpp"
#include "backends/cpu/ConvTransposeUpsample.hpp"
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/FusedActivationPass.hpp"
#include "backends/cpu/Gemm.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "ops/Conv.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

constexpr int64_t kTileRows = 96;  // input positions per task of the disjoint path

class CpuConvTranspose final : public Execution {
 public:
  CpuConvTranspose(Backend* b, const ConvParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>&, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    selectPackedData(inputs, true, in, out);
    // Fewer than 4 output channels (a segmentation head's probability map): NCHW, where
    // NC4HW4 would write 4 floats per pixel for 1.
    const Shape& w = inputs[1]->shape();
    if (w.size() >= 2 && w[1] * params_.group < kChannelPack) (*out)[0] = Layout::kNCHW;
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    TESSERA_RETURN_IF_ERROR(resolveConvTranspose(params_, inputs[0]->shape(), inputs[1]->shape(), &shape_));
    geometry_ = shape_.window.padTo3D();
    xAddr_ = ChannelAddressing(inputs[0]->shape(), inputs[0]->layout());
    yAddr_ = ChannelAddressing(outputs[0]->shape(), outputs[0]->layout());
    upsample_ = Upsample2x2Transpose::suits(shape_, xAddr_, yAddr_);
    if (upsample_) {
      upsampler_.plan(cpuPackedConstants(*this), shape_, xAddr_, yAddr_, inputs[1]);
      return Status::ok();
    }
    fewOutputs_ = Upsample2x2FewOutputs::suits(shape_, xAddr_, yAddr_);
    if (fewOutputs_) {
      fewOutputsUpsampler_.plan(cpuPackedConstants(*this), shape_, xAddr_, yAddr_, inputs[1]);
      return Status::ok();
    }
    disjoint_ = true;
    for (int d = 0; d < 3; ++d)
      disjoint_ = disjoint_ && (geometry_.kernel[d] - 1) * geometry_.dilation[d] < geometry_.stride[d];
    if (!disjoint_) {
      phases_.plan(cpuPackedConstants(*this), cpuPool(*this).threads(), shape_, geometry_, xAddr_, yAddr_, inputs[1]);
      return Status::ok();
    }
    taps_ = geometry_.kernelCount();
    inPositions_ = geometry_.inputCount();
    colWidth_ = shape_.outPerGroup() * taps_;
    const Tensor* w = inputs[1];
    const std::string packing = "ConvTranspose C" + std::to_string(shape_.inPerGroup()) + " cols" +
                                std::to_string(colWidth_) + " g" + std::to_string(shape_.group) + " disjoint";
    weights_.plan(cpuPackedConstants(*this), {w}, packing,
                  gemmPackedBSize(shape_.inPerGroup(), colWidth_) * shape_.group,
                  [this, w](float* dst) { packWeights(w->data<float>(), dst); });
    // Weights computed at run time are reordered on every run, into a buffer of the plan's.
    reordered_.assign(weights_.shared() ? 0 : shape_.inPerGroup() * colWidth_, 0.f);
    planDisjoint();
    return Status::ok();
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    return convTransposeWork(inputs, outputs);
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const float* x = inputs[0]->data<float>();
    const float* bias = inputs.size() > 2 && inputs[2] ? inputs[2]->data<float>() : nullptr;
    float* y = outputs[0]->data<float>();
    ThreadPool& pool = cpuPool(*this);
    if (upsample_) {
      upsampler_.run(pool, x, bias, y, params_.activation);
      if (activates()) zeroPaddingLanes(y, yAddr_);  // the activation of 0 need not be 0
      return Status::ok();
    }
    if (fewOutputs_) {  // NCHW y: no padding lanes
      fewOutputsUpsampler_.run(pool, x, bias, y, params_.activation);
      return Status::ok();
    }
    if (!disjoint_) {
      phases_.run(pool, x, bias, y, params_.activation);
      zeroPaddingLanes(y, yAddr_);  // the activation of 0 need not be 0
      return Status::ok();
    }
    packedB_ = weights_.get();
    runDisjoint(x, bias, y);
    activateOutput(y);
    zeroPaddingLanes(y, yAddr_);
    return Status::ok();
  }

 private:
  bool activates() const { return params_.activation.kind != FusedActivation::kNone || params_.activation.hasAffine(); }

  // The fused activation over all of y, a plane (NCHW channel or NC4HW4 block) at a time: for
  // the disjoint path, whose tiles write scattered outputs.
  void activateOutput(float* y) {
    if (!activates()) return;
    const int64_t planes = yAddr_.packed ? channelBlocks(shape_.outChannels) : shape_.outChannels;
    const int64_t planeSize = yAddr_.spatial * yAddr_.spatialStride;
    cpuPool(*this).parallelFor(shape_.batch * planes, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        applyFusedActivation(params_.activation, y + (i / planes) * yAddr_.batchStride + (i % planes) * planeSize,
                             planeSize);
    }, 1);
  }

  // B of group g: [C/group x (M/group * taps)], the columns of W's rows reordered (tap, m),
  // so 4 adjacent columns are one NC4HW4 output pixel.
  void packWeights(const float* w, float* packed) {
    const int64_t inPerGroup = shape_.inPerGroup(), outPerGroup = shape_.outPerGroup();
    const int64_t groupPacked = gemmPackedBSize(inPerGroup, colWidth_);
    std::vector<float> once;  // constants are packed once, at planning: no buffer kept for it
    float* reordered = reordered_.data();
    if (reordered_.empty()) {
      once.assign(inPerGroup * colWidth_, 0.f);
      reordered = once.data();
    }
    for (int64_t g = 0; g < shape_.group; ++g) {
      const float* wg = w + g * inPerGroup * colWidth_;
      for (int64_t c = 0; c < inPerGroup; ++c)
        for (int64_t m = 0; m < outPerGroup; ++m)
          for (int64_t t = 0; t < taps_; ++t)
            reordered[c * colWidth_ + t * outPerGroup + m] = wg[(c * outPerGroup + m) * taps_ + t];
      gemmPackB(inPerGroup, colWidth_, reordered, colWidth_, false, packed + g * groupPacked);
    }
  }

  // Tiles, scratch and the output offset of every (input position, tap) pair (-1 when the
  // pair falls outside y), for the disjoint path.
  void planDisjoint() {
    const WindowGeometry& w = geometry_;
    yChannel_.resize(shape_.outChannels);
    for (int64_t c = 0; c < shape_.outChannels; ++c) yChannel_[c] = yAddr_.channel(c);
    const int threads = cpuPool(*this).threads();
    tileRows_ = std::min<int64_t>(kTileRows, std::max<int64_t>(inPositions_, 1));
    while (tileRows_ > 24 && shape_.batch * shape_.group * tiles() < 4 * threads) tileRows_ /= 2;
    tasks_ = shape_.batch * shape_.group * tiles();
    workers_ = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, tasks_)));
    scratchPerWorker_ = tileRows_ * (shape_.inPerGroup() + colWidth_);
    scratch_.assign(scratchPerWorker_ * workers_, 0.f);
    // Along each axis, output index of (input index i, kernel index k), -1 outside; an output
    // index that no pair reaches holds only the bias.
    covered_ = true;
    std::vector<std::vector<int64_t>> axisOut(3);
    for (int d = 0; d < 3; ++d) {
      std::vector<bool> reached(w.output[d], false);
      axisOut[d].assign(w.input[d] * w.kernel[d], -1);
      for (int64_t i = 0; i < w.input[d]; ++i)
        for (int64_t k = 0; k < w.kernel[d]; ++k) {
          const int64_t o = i * w.stride[d] - w.padBegin[d] + k * w.dilation[d];
          if (o < 0 || o >= w.output[d]) continue;
          axisOut[d][i * w.kernel[d] + k] = o;
          reached[o] = true;
        }
      for (bool r : reached) covered_ = covered_ && r;
    }
    target_.assign(inPositions_ * taps_, -1);
    for (int64_t p = 0; p < inPositions_; ++p) {
      const int64_t iw = p % w.input[2], ih = (p / w.input[2]) % w.input[1], id = p / (w.input[2] * w.input[1]);
      int64_t t = 0;
      for (int64_t kd = 0; kd < w.kernel[0]; ++kd)
        for (int64_t kh = 0; kh < w.kernel[1]; ++kh)
          for (int64_t kw = 0; kw < w.kernel[2]; ++kw, ++t) {
            const int64_t od = axisOut[0][id * w.kernel[0] + kd], oh = axisOut[1][ih * w.kernel[1] + kh];
            const int64_t ow = axisOut[2][iw * w.kernel[2] + kw];
            if (od >= 0 && oh >= 0 && ow >= 0)
              target_[p * taps_ + t] = ((od * w.output[1] + oh) * w.output[2] + ow) * yAddr_.spatialStride;
          }
    }
  }

  int64_t tiles() const { return (inPositions_ + tileRows_ - 1) / tileRows_; }

  void runDisjoint(const float* x, const float* bias, float* y) {
    ThreadPool& pool = cpuPool(*this);
    if (!covered_) {  // outputs no tap reaches hold the bias
      pool.parallelFor(shape_.batch * shape_.outChannels, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const int64_t n = i / shape_.outChannels, oc = i % shape_.outChannels;
          float* dst = y + n * yAddr_.batchStride + yAddr_.channel(oc);
          const float b = bias ? bias[oc] : 0.f;
          for (int64_t q = 0; q < yAddr_.spatial; ++q) dst[q * yAddr_.spatialStride] = b;
        }
      }, 1);
    }
    const int workers = workers_;
    pool.parallelFor(workers, [&](int64_t begin, int64_t end) {
      for (int64_t wk = begin; wk < end; ++wk)
        for (int64_t t = wk; t < tasks_; t += workers) runDisjointTile(t, x, bias, y, wk);
    }, 1);
  }

  // One tile of input positions of one (batch, group): gather x, one GEMM, write each
  // product value (plus bias) to the one output it belongs to.
  void runDisjointTile(int64_t task, const float* x, const float* bias, float* y, int64_t worker) {
    const int64_t tile = task % tiles(), g = (task / tiles()) % shape_.group, n = task / (tiles() * shape_.group);
    const int64_t p0 = tile * tileRows_, rows = std::min(tileRows_, inPositions_ - p0);
    const int64_t inPerGroup = shape_.inPerGroup(), outPerGroup = shape_.outPerGroup();
    float* a = scratch_.data() + worker * scratchPerWorker_;
    float* product = a + tileRows_ * inPerGroup;
    const float* xb = x + n * xAddr_.batchStride;
    const int64_t c0 = g * inPerGroup;
    GemmArgs args;
    args.M = rows;
    args.N = colWidth_;
    args.K = inPerGroup;
    if (xAddr_.packed && c0 % kChannelPack == 0 && inPerGroup % kChannelPack == 0) {
      // The group's channels are whole NC4HW4 blocks: the GEMM reads them in place.
      args.A = xb + xAddr_.channel(c0) + p0 * kChannelPack;
      args.lda = kChannelPack;
      args.aBlockStride = xAddr_.spatial * kChannelPack;
    } else {
      // Gathered into [positions x C/group], whole input blocks one 4-float copy per position.
      const int64_t blockChannels =
          xAddr_.packed && c0 % kChannelPack == 0 ? inPerGroup / kChannelPack * kChannelPack : 0;
      for (int64_t c = 0; c < blockChannels; c += kChannelPack) {
        const float* src = xb + xAddr_.channel(c0 + c) + p0 * kChannelPack;
        for (int64_t r = 0; r < rows; ++r) storeFloat4(a + r * inPerGroup + c, loadFloat4(src + r * kChannelPack));
      }
      for (int64_t c = blockChannels; c < inPerGroup; ++c) {
        const float* src = xb + xAddr_.channel(c0 + c) + p0 * xAddr_.spatialStride;
        for (int64_t r = 0; r < rows; ++r) a[r * inPerGroup + c] = src[r * xAddr_.spatialStride];
      }
      args.A = a;
      args.lda = inPerGroup;
    }
    args.packedB = packedB_ + g * gemmPackedBSize(inPerGroup, colWidth_);
    args.C = product;
    args.ldc = colWidth_;
    gemmPackedTile(args, 0, rows, 0, colWidth_);

    float* yb = y + n * yAddr_.batchStride;
    const int64_t oc0 = g * outPerGroup;
    const int64_t* yChannel = yChannel_.data() + oc0;
    // Whole 4-channel blocks as vectors when the group's channels start on a block.
    const int64_t vectorChannels = yAddr_.packed && oc0 % kChannelPack == 0 ? outPerGroup / kChannelPack * kChannelPack : 0;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t* target = target_.data() + (p0 + r) * taps_;
      for (int64_t t = 0; t < taps_; ++t) {
        if (target[t] < 0) continue;
        const float* v = product + r * colWidth_ + t * outPerGroup;
        for (int64_t m = 0; m < vectorChannels; m += kChannelPack) {
          const Float4 b = bias ? loadFloat4(bias + oc0 + m) : splatFloat4(0.f);
          storeFloat4(yb + yChannel[m] + target[t], loadFloat4(v + m) + b);
        }
        for (int64_t m = vectorChannels; m < outPerGroup; ++m)
          yb[yChannel[m] + target[t]] = v[m] + (bias ? bias[oc0 + m] : 0.f);
      }
    }
  }

  ConvParams params_;
  ConvShape shape_;
  WindowGeometry geometry_;  // padded to 3 spatial dimensions
  ChannelAddressing xAddr_, yAddr_;
  int64_t taps_ = 1, inPositions_ = 0, colWidth_ = 0;
  bool upsample_ = false;  // the 2x2 stride-2 kernel serves it (nothing else is planned)
  Upsample2x2Transpose upsampler_;
  bool fewOutputs_ = false;  // the same onto 1-3 NCHW channels
  Upsample2x2FewOutputs fewOutputsUpsampler_;
  bool disjoint_ = false;  // no two (input position, tap) pairs reach the same output
  ConvTransposePhases phases_;  // where they do
  bool covered_ = true;    // every output is reached by some pair (else it starts at the bias)
  int64_t tileRows_ = kTileRows, tasks_ = 0, scratchPerWorker_ = 0;
  int workers_ = 1;
  std::vector<int64_t> target_;  // [input position][tap]: offset in y (spatial part), -1 outside
  std::vector<int64_t> yChannel_;  // channel part of the offsets in y
  AlignedFloats scratch_;
  AlignedFloats reordered_;  // one group's W in (c, tap, m) order, for packing weights
                                  // computed at run time (disjoint path)
  PackedWeights weights_;           // the GEMM's B: shared by the Session's plans when constant
  const float* packedB_ = nullptr;  // weights_ of this run
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  if (inputs[0]->dtype() != DataType::kF32 || inputs[1]->dtype() != DataType::kF32) return nullptr;
  if (inputs.size() > 2 && inputs[2] && inputs[2]->dtype() != DataType::kF32) return nullptr;
  if (inputs[0]->rank() < 3 || inputs[0]->rank() > 5) return nullptr;
  ConvParams p;
  if (!ConvParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuConvTranspose>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, ConvTranspose, create);

}  // namespace tessera
