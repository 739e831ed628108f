// CPU Resize / Upsample. The interpolation is separable: ops/Resize.cpp gives, per axis and
// output index, up to 4 (source index, weight) taps. Here they become element offsets of
// the actual layout (offsets split additively over axes in NCHW and NC4HW4 alike), and each
// output row combines the taps of its outer axes once, then walks the innermost axis.
// 4-D f32 tensors run on NC4HW4, other ranks on NCHW. On NC4HW4 with batch and channels
// unscaled (the usual case), the four channels of a block share every tap, so each output
// pixel is one 4-wide sum (one 4-float copy for nearest). The optional sum Z (ops/Resize.hpp),
// laid out as y, is added as each value is written.
#include <algorithm>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "ops/Resize.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

constexpr int kMaxRank = 6;
constexpr int kMaxOuterTaps = 1024;  // 4^(kMaxRank - 1)

struct Tap {
  int64_t offset;
  float weight;
};

struct AxisTable {
  std::vector<int> count;           // taps per output index; -1: outside (extrapolate)
  std::vector<Tap> taps;            // 4 per output index
  std::vector<int64_t> outOffset;   // offset of the output index in y
};

class CpuResize final : public Execution {
 public:
  CpuResize(Backend* b, const ResizeParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>&, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    selectPackedData(inputs, true, in, out);
    if (in->size() > kResizeSumInput) (*in)[kResizeSumInput] = (*out)[0];  // Z as y is laid out
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    xAddr_ = ChannelAddressing(inputs[0]->shape(), inputs[0]->layout());
    yAddr_ = ChannelAddressing(outputs[0]->shape(), outputs[0]->layout());
    tables_.assign(inputs[0]->rank(), AxisTable());
    tablesReady_ = false;
    bool known = true;
    for (int i : {params_.roiInput, params_.scalesInput, params_.sizesInput}) {
      const Tensor* t = input(inputs, i);
      known = known && (!t || t->elementCount() == 0 || (t->isConstant() && t->data()));
    }
    if (known) {
      TESSERA_RETURN_IF_ERROR(buildTables(inputs, *outputs[0]));
      tablesReady_ = true;
    }
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (!tablesReady_) TESSERA_RETURN_IF_ERROR(buildTables(inputs, *outputs[0]));
    const float* x = inputs[0]->data<float>();
    float* y = outputs[0]->data<float>();
    const Tensor* zt = input(inputs, static_cast<int>(kResizeSumInput));
    const float* z = zt ? zt->data<float>() : nullptr;  // laid out as y
    if (blockwise_) {
      runBlockwise(x, z, y, outputs[0]->shape());
      zeroPaddingLanes(y, yAddr_);
      return Status::ok();
    }
    const Shape& outShape = outputs[0]->shape();
    const int rank = static_cast<int>(outShape.size());
    int64_t rows = 1;
    for (int d = 0; d + 1 < rank; ++d) rows *= outShape[d];
    const AxisTable& inner = tables_[rank - 1];
    const int64_t innerCount = outShape[rank - 1];
    const float extrapolation = params_.extrapolationValue;
    cpuPool(*this).parallelFor(rows, [&](int64_t begin, int64_t end) {
      Tap combos[kMaxOuterTaps];
      for (int64_t row = begin; row < end; ++row) {
        combos[0] = {0, 1.f};
        int64_t yRow = 0;
        bool outside = false;
        const int n = combineOuterTaps(row, 0, outShape, combos, &yRow, &outside);
        for (int64_t j = 0; j < innerCount; ++j) {
          const int64_t at = yRow + inner.outOffset[j];
          const float plus = z ? z[at] : 0.f;
          const int count = inner.count[j];
          if (outside || count < 0) { y[at] = extrapolation + plus; continue; }
          const Tap* taps = inner.taps.data() + j * 4;
          float sum = 0.f;
          for (int c = 0; c < n; ++c) {
            const float* src = x + combos[c].offset;
            float part = 0.f;
            for (int k = 0; k < count; ++k) part += taps[k].weight * src[taps[k].offset];
            sum += combos[c].weight * part;
          }
          y[at] = sum + plus;
        }
      }
    }, 4);
    zeroPaddingLanes(y, yAddr_);
    return Status::ok();
  }

 private:
  static const Tensor* input(const Tensors& inputs, int i) {
    return i >= 0 && static_cast<size_t>(i) < inputs.size() ? inputs[i] : nullptr;
  }

  // Combines, for the output row whose outer-axis index (axes lowest..rank-2, innermost
  // first in `rest`) is `rest`, the taps of those axes into combos (starting from the single
  // combos[0] the caller set), adds their output offsets to *yRow, and sets *outside when
  // any axis extrapolates. Returns the number of combos.
  int combineOuterTaps(int64_t rest, int lowest, const Shape& outShape, Tap* combos, int64_t* yRow,
                       bool* outside) const {
    int n = 1;
    for (int d = static_cast<int>(outShape.size()) - 2; d >= lowest; --d) {
      const int64_t o = rest % outShape[d];
      rest /= outShape[d];
      const AxisTable& t = tables_[d];
      *yRow += t.outOffset[o];
      const int count = t.count[o];
      if (count < 0) {
        *outside = true;
        continue;
      }
      if (count == 1) {
        const Tap tap = t.taps[o * 4];
        for (int c = 0; c < n; ++c) {
          combos[c].offset += tap.offset;
          combos[c].weight *= tap.weight;
        }
        continue;
      }
      for (int c = n - 1; c >= 0; --c)
        for (int k = count - 1; k >= 0; --k) {
          const Tap tap = t.taps[o * 4 + k];
          combos[c * count + k] = {combos[c].offset + tap.offset, combos[c].weight * tap.weight};
        }
      n *= count;
    }
    return n;
  }

  // NC4HW4, batch and channel axes unscaled: rows are (n, channel block, outer spatial
  // indices), every tap a 4-lane load at lane 0 of its pixel.
  void runBlockwise(const float* x, const float* z, float* y, const Shape& outShape) {
    const int rank = static_cast<int>(outShape.size());
    const int64_t blocks = channelBlocks(outShape[1]);
    int64_t outer = 1;
    for (int d = 2; d + 1 < rank; ++d) outer *= outShape[d];
    const AxisTable& inner = tables_[rank - 1];
    const int64_t innerCount = outShape[rank - 1];
    const Float4 extrapolation = splatFloat4(params_.extrapolationValue);
    cpuPool(*this).parallelFor(outShape[0] * blocks * outer, [&](int64_t begin, int64_t end) {
      Tap combos[kMaxOuterTaps];
      for (int64_t row = begin; row < end; ++row) {
        const int64_t plane = row / outer;  // n * blocks + block
        const int64_t n = plane / blocks, block = plane % blocks;
        combos[0] = {n * xAddr_.batchStride + block * xAddr_.spatial * kChannelPack, 1.f};
        int64_t yRow = n * yAddr_.batchStride + block * yAddr_.spatial * kChannelPack;
        bool outside = false;
        const int c = combineOuterTaps(row % outer, 2, outShape, combos, &yRow, &outside);
        for (int64_t j = 0; j < innerCount; ++j) {
          const int64_t at = yRow + inner.outOffset[j];
          float* dst = y + at;
          const Float4 plus = z ? loadFloat4(z + at) : splatFloat4(0.f);
          const int count = inner.count[j];
          if (outside || count < 0) { storeFloat4(dst, extrapolation + plus); continue; }
          const Tap* taps = inner.taps.data() + j * 4;
          if (c == 1 && count == 1 && taps[0].weight == 1.f) {  // nearest
            storeFloat4(dst, loadFloat4(x + combos[0].offset + taps[0].offset) + plus);
            continue;
          }
          Float4 sum = splatFloat4(0.f);
          for (int i = 0; i < c; ++i) {
            const float* src = x + combos[i].offset;
            Float4 part = splatFloat4(0.f);
            for (int k = 0; k < count; ++k) part += splatFloat4(taps[k].weight) * loadFloat4(src + taps[k].offset);
            sum += splatFloat4(combos[i].weight) * part;
          }
          storeFloat4(dst, sum + plus);
        }
      }
    }, 4);
  }

  // Axis d maps every output index to the same input index with weight 1.
  bool unscaled(int d, int64_t extent) const {
    const AxisTable& t = tables_[d];
    if (static_cast<int64_t>(t.count.size()) != extent) return false;
    for (int64_t o = 0; o < extent; ++o)
      if (t.count[o] != 1 || t.taps[o * 4].weight != 1.f || t.taps[o * 4].offset != axisOffsetOf(d, o)) return false;
    return true;
  }
  int64_t axisOffsetOf(int d, int64_t v) const { return d == 0 ? v * xAddr_.batchStride : xAddr_.channel(v); }

  Status buildTables(const Tensors& inputs, const Tensor& y) {
    ResizeGeometry g;
    TESSERA_RETURN_IF_ERROR(resolveResize(params_, inputs[0]->shape(), input(inputs, params_.roiInput),
                                          input(inputs, params_.scalesInput), input(inputs, params_.sizesInput), &g));
    if (g.output != y.shape())
      return Status::invalid("the output shape " + shapeToString(g.output) + " differs from the planned " +
                             shapeToString(y.shape()) + " (scales or sizes changed after planning)");
    const Shape& xs = inputs[0]->shape();
    for (int d = 0; d < static_cast<int>(xs.size()); ++d) {
      const std::vector<ResizeTaps> taps = resizeAxisTaps(params_, g, d);
      AxisTable& t = tables_[d];
      t.count.assign(taps.size(), 0);
      t.taps.assign(taps.size() * 4, Tap{0, 0.f});
      t.outOffset.assign(taps.size(), 0);
      for (size_t o = 0; o < taps.size(); ++o) {
        t.count[o] = taps[o].outside ? -1 : taps[o].count;
        for (int k = 0; k < taps[o].count; ++k)
          t.taps[o * 4 + k] = {axisOffset(xs, xAddr_, d, taps[o].index[k]), taps[o].weight[k]};
        t.outOffset[o] = axisOffset(y.shape(), yAddr_, d, static_cast<int64_t>(o));
      }
    }
    blockwise_ = xAddr_.packed && yAddr_.packed && xs.size() >= 3 && unscaled(0, xs[0]) && unscaled(1, xs[1]);
    return Status::ok();
  }

  ResizeParams params_;
  ChannelAddressing xAddr_, yAddr_;
  std::vector<AxisTable> tables_;
  bool tablesReady_ = false;
  bool blockwise_ = false;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.empty() || !inputs[0] || inputs[0]->dtype() != DataType::kF32) return nullptr;
  if (inputs[0]->rank() < 1 || inputs[0]->rank() > kMaxRank) return nullptr;
  if (inputs.size() > kResizeSumInput && inputs[kResizeSumInput] && inputs[kResizeSumInput]->dtype() != DataType::kF32)
    return nullptr;
  ResizeParams p;
  if (!ResizeParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuResize>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Resize, create);
TESSERA_REGISTER_EXECUTION(kCPU, Upsample, create);

}  // namespace tessera
