// CPU ConvTranspose: GEMM + col2im.
//
// Per (batch, group): col[p][m*taps + tap] = sum_c x(c, p) * W[c][m][tap] is one GEMM
// ([input positions x C/group] times the group's packed weights), then every output channel
// gathers its contributions: y(m, p*stride - pad + tap*dilation) += col[p][m*taps + tap].
// The col2im step is split over output channels, so no two threads write the same value.
// 4-D tensors run on NC4HW4, other ranks on NCHW.
#include <algorithm>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/Gemm.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "ops/Conv.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuConvTranspose final : public Execution {
 public:
  CpuConvTranspose(Backend* b, const ConvParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>&, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    selectPackedData(inputs, true, in, out);
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    TESSERA_RETURN_IF_ERROR(resolveConvTranspose(params_, inputs[0]->shape(), inputs[1]->shape(), &shape_));
    geometry_ = shape_.window.padTo3D();
    xAddr_ = ChannelAddressing(inputs[0]->shape(), inputs[0]->layout());
    yAddr_ = ChannelAddressing(outputs[0]->shape(), outputs[0]->layout());
    taps_ = geometry_.kernelCount();
    inPositions_ = geometry_.inputCount();
    colWidth_ = shape_.outPerGroup() * taps_;
    packedWeights_.assign(gemmPackedBSize(shape_.inPerGroup(), colWidth_) * shape_.group, 0.f);
    weightsPacked_ = false;
    if (inputs[1]->isConstant() && inputs[1]->data()) {
      packWeights(inputs[1]->data<float>());
      weightsPacked_ = true;
    }
    gathered_.assign(inPositions_ * shape_.inPerGroup(), 0.f);
    col_.assign(inPositions_ * colWidth_, 0.f);
    return Status::ok();
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    return convTransposeWork(inputs, outputs);
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (!weightsPacked_) packWeights(inputs[1]->data<float>());
    const float* x = inputs[0]->data<float>();
    const float* bias = inputs.size() > 2 && inputs[2] ? inputs[2]->data<float>() : nullptr;
    float* y = outputs[0]->data<float>();
    ThreadPool& pool = cpuPool(*this);
    const int64_t inPerGroup = shape_.inPerGroup(), outPerGroup = shape_.outPerGroup();
    for (int64_t n = 0; n < shape_.batch; ++n) {
      for (int64_t g = 0; g < shape_.group; ++g) {
        // A = x^T for this group's channels: [input positions x C/group].
        const float* xb = x + n * xAddr_.batchStride;
        pool.parallelFor(inPositions_, [&](int64_t begin, int64_t end) {
          for (int64_t c = 0; c < inPerGroup; ++c) {
            const float* src = xb + xAddr_.channel(g * inPerGroup + c);
            for (int64_t p = begin; p < end; ++p) gathered_[p * inPerGroup + c] = src[p * xAddr_.spatialStride];
          }
        }, 256);
        GemmArgs args;
        args.M = inPositions_;
        args.N = colWidth_;
        args.K = inPerGroup;
        args.A = gathered_.data();
        args.lda = inPerGroup;
        args.packedB = packedWeights_.data() + g * gemmPackedBSize(inPerGroup, colWidth_);
        args.C = col_.data();
        args.ldc = colWidth_;
        gemmPacked(pool, args);
        pool.parallelFor(outPerGroup, [&](int64_t begin, int64_t end) {
          for (int64_t m = begin; m < end; ++m) col2im(m, g * outPerGroup + m, bias, y + n * yAddr_.batchStride);
        }, 1);
      }
    }
    zeroPaddingLanes(y, yAddr_);
    return Status::ok();
  }

 private:
  // B of group g: [C/group x (M/group * taps)], rows of W as they are.
  void packWeights(const float* w) {
    const int64_t inPerGroup = shape_.inPerGroup();
    const int64_t groupPacked = gemmPackedBSize(inPerGroup, colWidth_);
    for (int64_t g = 0; g < shape_.group; ++g)
      gemmPackB(inPerGroup, colWidth_, w + g * inPerGroup * colWidth_, colWidth_, false,
                packedWeights_.data() + g * groupPacked);
  }

  // Output channel `oc` (column block m of col) of one batch: bias, then every contribution.
  void col2im(int64_t m, int64_t oc, const float* bias, float* yBatch) const {
    const WindowGeometry& w = geometry_;
    const int64_t ss = yAddr_.spatialStride;
    float* dst = yBatch + yAddr_.channel(oc);
    const float b = bias ? bias[oc] : 0.f;
    const int64_t outCount = w.outputCount();
    for (int64_t q = 0; q < outCount; ++q) dst[q * ss] = b;
    for (int64_t p = 0; p < inPositions_; ++p) {
      const int64_t iw = p % w.input[2], ih = (p / w.input[2]) % w.input[1], id = p / (w.input[2] * w.input[1]);
      const float* src = col_.data() + p * colWidth_ + m * taps_;
      int64_t t = 0;
      for (int64_t kd = 0; kd < w.kernel[0]; ++kd) {
        const int64_t od = id * w.stride[0] - w.padBegin[0] + kd * w.dilation[0];
        if (od < 0 || od >= w.output[0]) { t += w.kernel[1] * w.kernel[2]; continue; }
        for (int64_t kh = 0; kh < w.kernel[1]; ++kh) {
          const int64_t oh = ih * w.stride[1] - w.padBegin[1] + kh * w.dilation[1];
          if (oh < 0 || oh >= w.output[1]) { t += w.kernel[2]; continue; }
          for (int64_t kw = 0; kw < w.kernel[2]; ++kw, ++t) {
            const int64_t ow = iw * w.stride[2] - w.padBegin[2] + kw * w.dilation[2];
            if (ow < 0 || ow >= w.output[2]) continue;
            dst[((od * w.output[1] + oh) * w.output[2] + ow) * ss] += src[t];
          }
        }
      }
    }
  }

  ConvParams params_;
  ConvShape shape_;
  WindowGeometry geometry_;  // padded to 3 spatial dimensions
  ChannelAddressing xAddr_, yAddr_;
  int64_t taps_ = 1, inPositions_ = 0, colWidth_ = 0;
  bool weightsPacked_ = false;
  std::vector<float> packedWeights_;
  std::vector<float> gathered_;
  std::vector<float> col_;
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
