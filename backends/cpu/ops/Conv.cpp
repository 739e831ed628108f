// CPU Conv: im2col over tiles of output positions + the shared packed GEMM.
//
// Each task takes one (batch, group, tile of output positions): it gathers the tile's input
// windows into a row-major [positions x (C/group * taps)] matrix, multiplies it by the
// group's pre-packed weights (K x M/group) and writes the result, plus bias, into y (the GEMM
// stores NC4HW4 blocks itself; other layouts go through a product tile).
// 4-D tensors run on NC4HW4, other ranks on NCHW; the kernel reads both through
// ChannelAddressing, so a folded (NCHW) run uses the same code. Depthwise 2-D convolutions
// go to their own direct kernel (ConvDepthwise.cpp); 3x3 stride-1 ones with enough channels
// through Winograd's transforms (ConvWinograd.hpp), those with 1-4 input channels to a
// direct kernel (ConvFewChannels.hpp), stride-1 ones with at most 12 outputs to another
// (ConvFewOutputs.hpp), and pointwise ones with few channels to a third (ConvPointwise.hpp).
// The optional Z input (ops/Conv.hpp), in y's layout, is added to each GEMM tile before its
// activation; the other kernels write y with its bias and a pass over the output adds Z and
// applies the activation.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/ClaimedTasks.hpp"
#include "backends/cpu/CacheAligned.hpp"
#include "backends/cpu/ColumnSplit.hpp"
#include "backends/cpu/ConvFewChannels.hpp"
#include "backends/cpu/ConvFewOutputs.hpp"
#include "backends/cpu/ConvPointwise.hpp"
#include "backends/cpu/ConvWinograd.hpp"
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/FusedActivationPass.hpp"
#include "backends/cpu/Gemm.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "backends/cpu/ops/ConvDepthwise.hpp"
#include "ops/Conv.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

constexpr int64_t kTileRows = 96;  // output positions per task (a multiple of the GEMM's MR)

class CpuConv final : public Execution {
 public:
  CpuConv(Backend* b, const ConvParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>&, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    selectPackedData(inputs, true, in, out);
    ConvShape s;
    if (inputs[0]->rank() == 4 && resolveConv(params_, inputs[0]->shape(), inputs[1]->shape(), &s).isOk() &&
        FewChannelConv::takes(s))
      (*in)[0] = Layout::kNCHW;  // read where it lies: a 3-channel image gains nothing from packing
    if (convSumInput(inputs)) (*in)[kConvSumInput] = (*out)[0];
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    TESSERA_RETURN_IF_ERROR(resolveConv(params_, inputs[0]->shape(), inputs[1]->shape(), &shape_));
    geometry_ = shape_.window.padTo3D();
    xAddr_ = ChannelAddressing(inputs[0]->shape(), inputs[0]->layout());
    yAddr_ = ChannelAddressing(outputs[0]->shape(), outputs[0]->layout());
    const Tensor* z = convSumInput(inputs);
    if (z && z->layout() != outputs[0]->layout()) return Status::internal("Conv needs its input 'Z' in y's layout");
    taps_ = geometry_.kernelCount();
    K_ = shape_.inPerGroup() * taps_;
    positions_ = geometry_.outputCount();
    // Shapes with a kernel of their own: the GEMM path's state is not needed.
    path_ = Path::kGemm;
    if (FewChannelConv::suits(shape_, xAddr_, yAddr_)) {
      path_ = Path::kFewChannels;
      fewChannelConv_.plan(cpuPackedConstants(*this), shape_, xAddr_, yAddr_, inputs[1]);
    } else if (FewOutputConv::suits(shape_, xAddr_, yAddr_)) {
      path_ = Path::kFewOutputs;
      fewOutputConv_.plan(cpuPackedConstants(*this), shape_, xAddr_, yAddr_, inputs[1], cpuPool(*this).threads());
    } else if (WinogradConv::suits(shape_, xAddr_, yAddr_)) {
      path_ = Path::kWinograd;
      winogradConv_.plan(cpuPackedConstants(*this), shape_, xAddr_, yAddr_, inputs[1], cpuPool(*this).threads());
    } else if (PointwiseConv::suits(shape_, xAddr_, yAddr_)) {
      path_ = Path::kPointwise;
      pointwiseConv_.plan(cpuPackedConstants(*this), shape_, xAddr_, yAddr_, inputs[1], cpuPool(*this).threads());
    }
    if (path_ != Path::kFewChannels) fewChannelConv_ = FewChannelConv();
    if (path_ != Path::kFewOutputs) fewOutputConv_ = FewOutputConv();
    if (path_ != Path::kWinograd) winogradConv_ = WinogradConv();
    if (path_ != Path::kPointwise) pointwiseConv_ = PointwiseConv();
    if (path_ != Path::kGemm) {
      weights_ = PackedWeights();
      scratch_.clear();
      return Status::ok();
    }

    // K order, which im2col and the packed weights share. NC4HW4 input whose groups hold
    // whole channel blocks, no dilation along W: a window row of one block is KW adjacent
    // pixels, one copy of KW*4 floats, so K is (kd, kh, block, kw, lane). Groups that start
    // on a block but end mid-block: (tap, channel), up to 4 channels per copy. Otherwise
    // (channel, tap), the order of W itself.
    const bool wholeBlocks = shape_.inPerGroup() % kChannelPack == 0;
    order_ = KOrder::kChannelTap;
    if (xAddr_.packed && wholeBlocks && geometry_.dilation[2] == 1) {
      order_ = KOrder::kRowBlock;
    } else if (xAddr_.packed && (shape_.group == 1 || wholeBlocks)) {
      order_ = KOrder::kTapChannel;
    }
    // A pointwise conv (1x1, stride 1, no padding) on whole blocks needs no im2col: the GEMM
    // reads its rows (positions) straight from the NC4HW4 input, K in channel order.
    direct_ = order_ == KOrder::kRowBlock && taps_ == 1;
    for (int d = 0; d < 3; ++d)
      direct_ = direct_ && geometry_.stride[d] == 1 && geometry_.padBegin[d] == 0 && geometry_.padEnd[d] == 0 &&
                geometry_.output[d] == geometry_.input[d];
    const int64_t groupPacked = gemmPackedBSize(K_, shape_.outPerGroup());
    const Tensor* w = inputs[1];
    const std::string packing = "Conv K" + std::to_string(K_) + " M" + std::to_string(shape_.outPerGroup()) + " g" +
                                std::to_string(shape_.group) + " order" + std::to_string(static_cast<int>(order_));
    weights_.plan(cpuPackedConstants(*this), {w}, packing, groupPacked * shape_.group,
                  [this, w](float* dst) { packWeights(w->data<float>(), dst); });
    // Weights computed at run time are reordered on every run, into a buffer of the plan's.
    reordered_.assign(!weights_.shared() && order_ != KOrder::kChannelTap ? shape_.outPerGroup() * K_ : 0, 0.f);
    xChannel_.resize(shape_.inChannels);
    for (int64_t c = 0; c < shape_.inChannels; ++c) xChannel_[c] = xAddr_.channel(c);
    relativeTap_.clear();
    for (int64_t kd = 0; kd < geometry_.kernel[0]; ++kd)
      for (int64_t kh = 0; kh < geometry_.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < geometry_.kernel[2]; ++kw)
          relativeTap_.push_back(((kd * geometry_.dilation[0] * geometry_.input[1] + kh * geometry_.dilation[1]) *
                                      geometry_.input[2] + kw * geometry_.dilation[2]) * xAddr_.spatialStride);
    yChannel_.resize(shape_.outChannels);
    for (int64_t c = 0; c < shape_.outChannels; ++c) yChannel_[c] = yAddr_.channel(c);

    // Tiles: enough tasks to keep every thread busy, but not so small that GEMM suffers.
    const int threads = cpuPool(*this).threads();
    tileRows_ = std::min<int64_t>(kTileRows, std::max<int64_t>(positions_, 1));
    while (tileRows_ > 24 && shape_.batch * shape_.group * tilesPerGroup(tileRows_) < threads)
      tileRows_ = (tileRows_ / 2 + 5) / 6 * 6;
    tasks_ = shape_.batch * shape_.group * tilesPerGroup(tileRows_);
    // Where the rows make too few or uneven tasks, each task takes a chunk of the output
    // channels too (ColumnSplit.hpp): rec's 480 -> 480 at 6x80 is 5 row tasks (3 and 2 a
    // thread), ResNet's 256 -> 512 at 7x7 three (24, 24 and 1 rows). An im2col task gathers
    // its rows again for each chunk: K floats a row, against K x chunk multiply-adds.
    const int64_t tiles = tilesPerGroup(tileRows_);
    std::vector<int64_t> rowTiles(tasks_);
    for (int64_t t = 0; t < tasks_; ++t)
      rowTiles[t] = gemmRowTiles(std::min(tileRows_, positions_ - t % tiles * tileRows_));
    const ColumnSplit split = splitColumns(shape_.outPerGroup(), rowTiles, threads);
    colChunk_ = split.width;
    rowTasks_ = tasks_;
    tasks_ *= split.chunks;
    workers_ = static_cast<int>(std::min<int64_t>(threads, tasks_));
    // Per worker: the im2col tile, the product tile (only where the GEMM cannot write y's
    // NC4HW4 blocks itself) and the tap offsets.
    const int64_t productWidth = nc4Output() ? 0 : shape_.outPerGroup();
    scratchPerWorker_ = tileRows_ * (colWidth() + productWidth + 1) + taps_;
    scratch_.assign(scratchPerWorker_ * std::max(workers_, 1), 0.f);
    tapOffsets_.assign(tapOffsetsPerWorker() * std::max(workers_, 1), 0);
    return Status::ok();
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    return convWork(inputs, outputs);
  }

  // x is read in onExecute alone (every path takes its pointer there): a network's first conv
  // reads the caller's image where it lies (YOLOv8n at 640x640 had copied its 4.9 MB first).
  bool readsInputInPlace(size_t input) const override { return input == 0; }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const float* x = inputs[0]->data<float>();
    const float* bias = inputs.size() > 2 && inputs[2] ? inputs[2]->data<float>() : nullptr;
    float* y = outputs[0]->data<float>();
    const Tensor* zTensor = convSumInput(inputs);
    const float* z = zTensor ? zTensor->data<float>() : nullptr;
    if (path_ == Path::kPointwise) {  // Z and the activation on each chunk, in cache
      pointwiseConv_.run(cpuPool(*this), x, bias, z, y, params_.activation);
      zeroPaddingLanes(y, yAddr_);
      return Status::ok();
    }
    if (path_ != Path::kGemm) {
      const FusedActivation act = z ? FusedActivation() : params_.activation;  // applied after Z
      if (path_ == Path::kWinograd) winogradConv_.run(cpuPool(*this), x, bias, y, act);
      if (path_ == Path::kFewChannels) fewChannelConv_.run(cpuPool(*this), x, bias, y, act);
      if (path_ == Path::kFewOutputs) fewOutputConv_.run(cpuPool(*this), x, bias, y, act);
      if (z)
        addSumAndActivate(cpuPool(*this), y, z, static_cast<int64_t>(outputs[0]->byteSize() / sizeof(float)),
                          params_.activation);
      zeroPaddingLanes(y, yAddr_);
      return Status::ok();
    }
    packedB_ = weights_.get();
    runClaimedTasks(cpuPool(*this), tasks_, workers_,
                    [&](int64_t task, int64_t worker) { runTask(task, x, bias, z, y, worker); });
    zeroPaddingLanes(y, yAddr_);
    return Status::ok();
  }

 private:
  int64_t tilesPerGroup(int64_t rows) const { return (positions_ + rows - 1) / rows; }
  int64_t colWidth() const { return direct_ ? 0 : K_; }  // floats per im2col row
  // K in (kd, kh, block, kw, lane) order: im2col writes each group of 4 k (a tap of one
  // channel block) for all the tile's rows together, [k / 4][row][k % 4], the layout of the
  // GEMM's packed A panels, which then reads them in place instead of packing a row-major
  // copy of them (ResNet-18's stride-2 3x3 convs, 2 threads: see docs/cpu-conv-gemm.md).
  bool blockedColumns() const { return order_ == KOrder::kRowBlock && !direct_; }
  // Blocked columns take every row's tap offsets (and its window corner) before they copy; the
  // others one row's.
  int64_t tapOffsetsPerWorker() const { return blockedColumns() ? tileRows_ * (taps_ + 1) : taps_; }
  // y in whole NC4HW4 blocks per group: the GEMM stores them, bias included.
  bool nc4Output() const { return yAddr_.packed && shape_.outPerGroup() % kChannelPack == 0; }

  // Position in K of (channel c of the group, tap t) under order_.
  int64_t kIndex(int64_t c, int64_t t) const {
    const int64_t inPerGroup = shape_.inPerGroup();
    if (order_ == KOrder::kChannelTap) return c * taps_ + t;
    if (order_ == KOrder::kTapChannel) return t * inPerGroup + c;
    const int64_t kw = t % geometry_.kernel[2], row = t / geometry_.kernel[2];  // row = kd*KH + kh
    return ((row * (inPerGroup / kChannelPack) + c / kChannelPack) * geometry_.kernel[2] + kw) * kChannelPack +
           c % kChannelPack;
  }

  // B of group g: element (k, m) = W[g*M/group + m][c][tap] with k = kIndex(c, tap) (W is
  // reordered first unless K is in its own order).
  void packWeights(const float* w, float* packed) {
    const int64_t outPerGroup = shape_.outPerGroup(), inPerGroup = shape_.inPerGroup();
    const int64_t groupPacked = gemmPackedBSize(K_, outPerGroup);
    std::vector<float> once;  // constants are packed once, at planning: no buffer kept for it
    float* reordered = reordered_.data();
    if (order_ != KOrder::kChannelTap && reordered_.empty()) {
      once.assign(outPerGroup * K_, 0.f);
      reordered = once.data();
    }
    for (int64_t g = 0; g < shape_.group; ++g) {
      const float* wg = w + g * outPerGroup * K_;
      if (order_ != KOrder::kChannelTap) {
        for (int64_t m = 0; m < outPerGroup; ++m)
          for (int64_t c = 0; c < inPerGroup; ++c)
            for (int64_t t = 0; t < taps_; ++t) reordered[m * K_ + kIndex(c, t)] = wg[(m * inPerGroup + c) * taps_ + t];
        wg = reordered;
      }
      gemmPackB(K_, outPerGroup, wg, K_, true, packed + g * groupPacked);
    }
  }

  void runTask(int64_t task, const float* x, const float* bias, const float* z, float* y, int64_t worker) {
    const int64_t tiles = tilesPerGroup(tileRows_);
    const int64_t n0 = task / rowTasks_ * colChunk_, n1 = std::min(shape_.outPerGroup(), n0 + colChunk_);
    task %= rowTasks_;
    const int64_t tile = task % tiles;
    const int64_t g = (task / tiles) % shape_.group;
    const int64_t n = task / (tiles * shape_.group);
    const int64_t p0 = tile * tileRows_;
    const int64_t rows = std::min(tileRows_, positions_ - p0);
    const int64_t outPerGroup = shape_.outPerGroup();
    float* col = scratch_.data() + worker * scratchPerWorker_;
    float* product = col + tileRows_ * colWidth();
    int64_t* tapOffset = tapOffsets_.data() + worker * tapOffsetsPerWorker();

    GemmArgs args;
    args.M = rows;
    args.N = outPerGroup;
    args.K = K_;
    if (direct_) {
      args.A = x + n * xAddr_.batchStride + xChannel_[g * shape_.inPerGroup()] + p0 * kChannelPack;
      args.lda = kChannelPack;
      args.aBlockStride = xAddr_.spatial * kChannelPack;
    } else {
      im2col(x + n * xAddr_.batchStride, g, p0, rows, col, tapOffset);
      args.A = col;
      args.lda = blockedColumns() ? kChannelPack : K_;
      args.aBlockStride = blockedColumns() ? tileRows_ * kChannelPack : 0;
    }
    args.packedB = packedB_ + g * gemmPackedBSize(K_, outPerGroup);
    float* yBatch = y + n * yAddr_.batchStride;
    const float* zBatch = z ? z + n * yAddr_.batchStride : nullptr;  // Z is laid out as y
    if (nc4Output()) {
      // Whole output blocks: the GEMM writes y's NC4HW4 blocks, bias included, and a Relu or
      // Clip as it stores; Z and the other activations follow on each block's rows while they
      // are in cache (a ReLU6 pass after MobileNetV2's 32 -> 192 at 56x56 had cost 45%).
      args.C = yBatch + yChannel_[g * outPerGroup] + p0 * kChannelPack;
      args.cBlockStride = yAddr_.spatial * kChannelPack;
      args.bias = bias ? bias + g * outPerGroup : nullptr;
      args.clamp = RegisterClamp::of(params_.activation, zBatch != nullptr);  // Relu/Clip as it stores
      gemmPackedTile(args, 0, rows, n0, n1);
      if (args.clamp.any()) return;
      for (int64_t m = n0; m < n1; m += kChannelPack) {
        float* dst = yBatch + yChannel_[g * outPerGroup + m] + p0 * kChannelPack;
        if (zBatch) addSumRange(dst, zBatch + (dst - yBatch), rows * kChannelPack);
        applyFusedActivation(params_.activation, dst, rows * kChannelPack);
      }
      return;
    }
    args.C = product;
    args.ldc = outPerGroup;
    gemmPackedTile(args, 0, rows, n0, n1);

    for (int64_t m = n0; m < n1; ++m) {
      const int64_t oc = g * outPerGroup + m;
      const float b = bias ? bias[oc] : 0.f;
      float* dst = yBatch + yChannel_[oc] + p0 * yAddr_.spatialStride;
      const int64_t step = yAddr_.spatialStride;
      for (int64_t r = 0; r < rows; ++r) dst[r * step] = product[r * outPerGroup + m] + b;
      if (zBatch) addSumRange(dst, zBatch + (dst - yBatch), rows, step);
      applyFusedActivation(params_.activation, dst, rows, step);
    }
  }

  // col[r][kIndex(c, tap)] = x(channel g*C/group + c, window tap of output position p0 + r),
  // zero where the tap falls into padding.
  void im2col(const float* x, int64_t g, int64_t p0, int64_t rows, float* col, int64_t* tapOffset) const {
    const WindowGeometry& w = geometry_;
    const int64_t ss = xAddr_.spatialStride;
    const bool blocked = blockedColumns();
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t p = p0 + r;
      const int64_t ow = p % w.output[2], oh = (p / w.output[2]) % w.output[1], od = p / (w.output[2] * w.output[1]);
      const int64_t d0 = od * w.stride[0] - w.padBegin[0], h0 = oh * w.stride[1] - w.padBegin[1];
      const int64_t w0 = ow * w.stride[2] - w.padBegin[2];
      int64_t* offsets = blocked ? tapOffset + r * taps_ : tapOffset;
      const bool inside = d0 >= 0 && d0 + (w.kernel[0] - 1) * w.dilation[0] < w.input[0] && h0 >= 0 &&
                          h0 + (w.kernel[1] - 1) * w.dilation[1] < w.input[1] && w0 >= 0 &&
                          w0 + (w.kernel[2] - 1) * w.dilation[2] < w.input[2];
      // The whole window inside: fixed offsets from its corner (blocked columns add them as
      // they copy); else each tap's, -1 in the padding.
      const int64_t corner = inside ? ((d0 * w.input[1] + h0) * w.input[2] + w0) * ss : -1;
      if (blocked) {
        tapOffset[tileRows_ * taps_ + r] = corner;
        if (!inside) fillBorderTaps(d0, h0, w0, offsets);
        continue;
      }
      if (inside) {
        for (int64_t t = 0; t < taps_; ++t) offsets[t] = corner + relativeTap_[t];
      } else {
        fillBorderTaps(d0, h0, w0, offsets);
      }
      gather(x, g, offsets, col + r * K_);
    }
    if (blocked) gatherBlocked(x, g, rows, tapOffset, col);
  }

  // Offsets of the window taps at corner (d0, h0, w0), -1 for taps in the padding.
  void fillBorderTaps(int64_t d0, int64_t h0, int64_t w0, int64_t* tapOffset) const {
    const WindowGeometry& w = geometry_;
    const int64_t ss = xAddr_.spatialStride;
    int64_t t = 0;
    for (int64_t kd = 0; kd < w.kernel[0]; ++kd) {
      const int64_t id = d0 + kd * w.dilation[0];
      for (int64_t kh = 0; kh < w.kernel[1]; ++kh) {
        const int64_t ih = h0 + kh * w.dilation[1];
        for (int64_t kw = 0; kw < w.kernel[2]; ++kw, ++t) {
          const int64_t iw = w0 + kw * w.dilation[2];
          const bool inside = id >= 0 && id < w.input[0] && ih >= 0 && ih < w.input[1] && iw >= 0 && iw < w.input[2];
          tapOffset[t] = inside ? ((id * w.input[1] + ih) * w.input[2] + iw) * ss : -1;
        }
      }
    }
  }

  // col as blockedColumns() lays it out: group j of 4 k (window row, block, kw) holds the
  // tile's rows one after another, each that tap's 4 channels (zeros in the padding). Copied
  // group by group, so the stores run along col; per row instead, each row's 16-byte pieces
  // fell a tile apart and the gather ran slower than the row-major copy it replaced. A row
  // whose window is inside reads at its corner plus the tap's offset; only the others read
  // their own offsets (a table of `taps_` a row, filled and read for every row before: a
  // 16 -> 32 3x3 stride-2 conv at 320x320 with SiLU, 2 threads, 3.36 -> 3.06 ms). Most of
  // what is left here is waiting on x: that conv, one thread, spends a quarter of its time in
  // this gather, mostly on its loads.
  void gatherBlocked(const float* x, int64_t g, int64_t rows, const int64_t* tapOffset, float* col) const {
    const float* src = x + xChannel_[g * shape_.inPerGroup()];
    const int64_t blockStride = xAddr_.spatial * kChannelPack, blocks = shape_.inPerGroup() / kChannelPack;
    const int64_t KW = geometry_.kernel[2], windowRows = taps_ / KW, groupStride = tileRows_ * kChannelPack;
    const int64_t* corner = tapOffset + tileRows_ * taps_;
    float* dst = col;
    for (int64_t row = 0; row < windowRows; ++row)
      for (int64_t b = 0; b < blocks; ++b)
        for (int64_t kw = 0; kw < KW; ++kw, dst += groupStride) {
          const int64_t tap = row * KW + kw;
          const float* s = src + b * blockStride;
          const float* sTap = s + relativeTap_[tap];
          for (int64_t r = 0; r < rows; ++r) {
            if (corner[r] >= 0) {
              storeFloat4(dst + r * kChannelPack, loadFloat4(sTap + corner[r]));
              continue;
            }
            const int64_t offset = tapOffset[r * taps_ + tap];
            if (offset >= 0) storeFloat4(dst + r * kChannelPack, loadFloat4(s + offset));
            else std::memset(dst + r * kChannelPack, 0, sizeof(float) * kChannelPack);
          }
        }
  }

  // One row of col (row-major) from the tap offsets of its output position.
  void gather(const float* x, int64_t g, const int64_t* tapOffset, float* dst) const {
    const int64_t inPerGroup = shape_.inPerGroup();
    if (order_ == KOrder::kTapChannel) {
      const float* src = x + xChannel_[g * inPerGroup];
      const int64_t blockStride = xAddr_.spatial * kChannelPack;
      const int64_t whole = inPerGroup / kChannelPack * kChannelPack;
      for (int64_t tap = 0; tap < taps_; ++tap) {
        float* d = dst + tap * inPerGroup;
        if (tapOffset[tap] < 0) {
          std::memset(d, 0, sizeof(float) * inPerGroup);
          continue;
        }
        const float* s = src + tapOffset[tap];
        for (int64_t c = 0; c < whole; c += kChannelPack, s += blockStride)
          std::memcpy(d + c, s, sizeof(float) * kChannelPack);
        for (int64_t c = whole; c < inPerGroup; ++c) d[c] = s[c - whole];  // partial last block
      }
      return;
    }
    for (int64_t c = 0; c < inPerGroup; ++c) {
      const float* src = x + xChannel_[g * inPerGroup + c];
      for (int64_t tap = 0; tap < taps_; ++tap) dst[c * taps_ + tap] = tapOffset[tap] < 0 ? 0.f : src[tapOffset[tap]];
    }
  }

  ConvParams params_;
  ConvShape shape_;
  WindowGeometry geometry_;  // padded to 3 spatial dimensions
  ChannelAddressing xAddr_, yAddr_;
  std::vector<int64_t> xChannel_, yChannel_;  // channel part of the offsets
  std::vector<int64_t> relativeTap_;          // tap offsets from the window corner
  int64_t taps_ = 1, K_ = 0, positions_ = 0;
  int64_t tileRows_ = kTileRows, tasks_ = 0, scratchPerWorker_ = 0;
  // Task t: row task t % rowTasks_, output channels from (t / rowTasks_) * colChunk_.
  int64_t rowTasks_ = 0, colChunk_ = 0;
  int workers_ = 1;
  enum class KOrder { kChannelTap, kTapChannel, kRowBlock };
  KOrder order_ = KOrder::kChannelTap;
  bool direct_ = false;  // pointwise on whole blocks: the GEMM reads x in place
  // im2col (or x in place) + GEMM, or a kernel of its own for 3x3 stride 1 (Winograd), a
  // first conv on an image (1-4 input channels), few outputs, or a pointwise conv.
  enum class Path { kGemm, kWinograd, kFewChannels, kFewOutputs, kPointwise };
  Path path_ = Path::kGemm;
  WinogradConv winogradConv_;
  FewChannelConv fewChannelConv_;
  FewOutputConv fewOutputConv_;
  PointwiseConv pointwiseConv_;
  AlignedFloats reordered_;  // W in K order, for packing weights computed at run time
  PackedWeights weights_;          // the GEMM's B: shared by the Session's plans when constant
  const float* packedB_ = nullptr;  // weights_ of this run
  AlignedFloats scratch_;
  std::vector<int64_t> tapOffsets_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  if (inputs[0]->dtype() != DataType::kF32 || inputs[1]->dtype() != DataType::kF32) return nullptr;
  if (inputs.size() > 2 && inputs[2] && inputs[2]->dtype() != DataType::kF32) return nullptr;
  if (inputs[0]->rank() < 3 || inputs[0]->rank() > 5) return nullptr;
  ConvParams p;
  if (!ConvParams::parse(node, &p).isOk()) return nullptr;
  ConvShape shape;
  if (!resolveConv(p, inputs[0]->shape(), inputs[1]->shape(), &shape).isOk()) return nullptr;
  if (isDepthwiseConv2D(shape)) return makeCpuDepthwiseConv(b, p);
  return std::make_unique<CpuConv>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Conv, create);

}  // namespace tessera
