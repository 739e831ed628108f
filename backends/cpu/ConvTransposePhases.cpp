#include "backends/cpu/ConvTransposePhases.hpp"

#include <algorithm>
#include <string>

#include "backends/cpu/ClaimedTasks.hpp"
#include "backends/cpu/FusedActivationPass.hpp"
#include "backends/cpu/Gemm.hpp"
#include "tessera/ThreadPool.hpp"

namespace tessera {
namespace {

constexpr int64_t kTileRows = 96;  // outputs a task (Conv's tile: B is read once per tile)

// Along one axis: the taps of the phase whose first output is `first`, each with its input
// offset (input = grid index + offset).
std::vector<std::pair<int64_t, int64_t>> axisTaps(const WindowGeometry& w, int d, int64_t first) {
  std::vector<std::pair<int64_t, int64_t>> taps;
  for (int64_t k = 0; k < w.kernel[d]; ++k) {
    const int64_t v = first + w.padBegin[d] - k * w.dilation[d];
    if (((v % w.stride[d]) + w.stride[d]) % w.stride[d] != 0) continue;
    taps.emplace_back(k, v / w.stride[d]);  // exact: v is a multiple of the stride
  }
  return taps;
}

}  // namespace

void ConvTransposePhases::plan(PackedConstants& cache, int threads, const ConvShape& c, const WindowGeometry& window,
                               const ChannelAddressing& x, const ChannelAddressing& y, const Tensor* w) {
  shape_ = c;
  window_ = window;
  xAddr_ = x;
  yAddr_ = y;
  const int64_t inPerGroup = c.inPerGroup(), outPerGroup = c.outPerGroup();
  const int mr = gemmTileRows();
  phases_.clear();
  tasks_.clear();
  groupPacked_ = 0;
  int64_t scratch = 0;
  for (int64_t fd = 0; fd < window.stride[0]; ++fd)
    for (int64_t fh = 0; fh < window.stride[1]; ++fh)
      for (int64_t fw = 0; fw < window.stride[2]; ++fw) {
        Phase p;
        const int64_t first[3] = {fd, fh, fw};
        std::vector<std::pair<int64_t, int64_t>> axis[3];
        for (int d = 0; d < 3; ++d) {
          p.first[d] = first[d];
          p.count[d] = first[d] < window.output[d] ? (window.output[d] - first[d] + window.stride[d] - 1) / window.stride[d] : 0;
          axis[d] = axisTaps(window, d, first[d]);
        }
        for (const auto& [kd, od] : axis[0])
          for (const auto& [kh, oh] : axis[1])
            for (const auto& [kw, ow] : axis[2]) {
              Tap t;
              t.index = (kd * window.kernel[1] + kh) * window.kernel[2] + kw;
              t.offset[0] = od, t.offset[1] = oh, t.offset[2] = ow;
              p.taps.push_back(t);
            }
        // Every phase is packed, outputs or not: the packing is shared by the Session's plans
        // (its key names the window, not the output's size), and a small output reaches
        // only some phases.
        p.K = static_cast<int64_t>(p.taps.size()) * inPerGroup;
        p.packed = groupPacked_;
        groupPacked_ += gemmPackedBSize(p.K, outPerGroup);
        const int64_t outputs = p.count[0] * p.count[1] * p.count[2];
        const int64_t rows = std::min(kTileRows / mr * mr, outputs);
        scratch = std::max(scratch, rows * (p.K + outPerGroup));
        for (int64_t b = 0; b < outputs; b += rows)
          tasks_.push_back(Task{static_cast<int64_t>(phases_.size()), b, std::min(rows, outputs - b)});
        phases_.push_back(std::move(p));
      }
  const int64_t allTasks = c.batch * c.group * static_cast<int64_t>(tasks_.size());
  workers_ = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, allTasks)));
  scratchPerWorker_ = (scratch + 15) / 16 * 16;  // each worker's scratch on its own cache lines
  scratch_.assign(scratchPerWorker_ * workers_, 0.f);
  const std::string key = "ConvTranspose phases C" + std::to_string(inPerGroup) + " M" + std::to_string(outPerGroup) +
                          " g" + std::to_string(c.group) + " k" + joinInts(window.kernel) + " s" +
                          joinInts(window.stride) + " d" + joinInts(window.dilation) + " p" + joinInts(window.padBegin);
  weights_.plan(cache, {w}, key, static_cast<size_t>(groupPacked_ * c.group),
                [this, w](float* dst) { packWeights(w->data<float>(), dst); });
}

// Phase p's B of group g: row (tap i, channel c), column m = W[g * C/group + c][m][tap i].
void ConvTransposePhases::packWeights(const float* w, float* packed) const {
  const int64_t inPerGroup = shape_.inPerGroup(), outPerGroup = shape_.outPerGroup();
  const int64_t taps = window_.kernelCount();
  std::vector<float> b;  // at resize for constant weights (at run time otherwise: rare)
  for (int64_t g = 0; g < shape_.group; ++g)
    for (const Phase& p : phases_) {
      b.assign(static_cast<size_t>(p.K * outPerGroup), 0.f);
      for (size_t i = 0; i < p.taps.size(); ++i)
        for (int64_t c = 0; c < inPerGroup; ++c) {
          const float* src = w + ((g * inPerGroup + c) * outPerGroup) * taps + p.taps[i].index;
          float* dst = b.data() + (static_cast<int64_t>(i) * inPerGroup + c) * outPerGroup;
          for (int64_t m = 0; m < outPerGroup; ++m) dst[m] = src[m * taps];
        }
      if (p.K > 0) gemmPackB(p.K, outPerGroup, b.data(), outPerGroup, false, packed + g * groupPacked_ + p.packed);
    }
}

void ConvTransposePhases::run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act) {
  packedB_ = weights_.get();
  const int64_t perBatchGroup = static_cast<int64_t>(tasks_.size());
  runClaimedTasks(pool, shape_.batch * shape_.group * perBatchGroup, workers_, [&](int64_t t, int64_t worker) {
    const int64_t ng = t / perBatchGroup;
    runTask(tasks_[static_cast<size_t>(t % perBatchGroup)], ng / shape_.group, ng % shape_.group, x, bias, y, act,
            scratch_.data() + worker * scratchPerWorker_);
  });
}

void ConvTransposePhases::runTask(const Task& task, int64_t n, int64_t g, const float* x, const float* bias, float* y,
                                  const FusedActivation& act, float* scratch) const {
  const Phase& p = phases_[static_cast<size_t>(task.phase)];
  const int64_t inPerGroup = shape_.inPerGroup(), outPerGroup = shape_.outPerGroup();
  const int64_t c0 = g * inPerGroup, oc0 = g * outPerGroup;
  const WindowGeometry& w = window_;
  float* a = scratch;
  float* product = scratch + task.rows * p.K;
  const float* xb = x + n * xAddr_.batchStride;
  // The group's channels that are whole NC4HW4 blocks go 4 floats at a time.
  const int64_t blockChannels = xAddr_.packed && c0 % kChannelPack == 0 ? inPerGroup / kChannelPack * kChannelPack : 0;

  // A: row r = output (jd, jh, jw) of the phase's grid; its taps' input channels.
  for (int64_t r = 0; r < task.rows; ++r) {
    const int64_t j = task.begin + r;
    const int64_t jw = j % p.count[2], jh = (j / p.count[2]) % p.count[1], jd = j / (p.count[2] * p.count[1]);
    float* row = a + r * p.K;
    for (const Tap& t : p.taps) {
      const int64_t id = jd + t.offset[0], ih = jh + t.offset[1], iw = jw + t.offset[2];
      if (id < 0 || id >= w.input[0] || ih < 0 || ih >= w.input[1] || iw < 0 || iw >= w.input[2]) {
        std::fill(row, row + inPerGroup, 0.f);
      } else {
        const int64_t s = (id * w.input[1] + ih) * w.input[2] + iw;
        for (int64_t c = 0; c < blockChannels; c += kChannelPack)
          storeFloat4(row + c, loadFloat4(xb + xAddr_.channel(c0 + c) + s * kChannelPack));
        for (int64_t c = blockChannels; c < inPerGroup; ++c)
          row[c] = xb[xAddr_.channel(c0 + c) + s * xAddr_.spatialStride];
      }
      row += inPerGroup;
    }
  }
  GemmArgs args;
  args.M = task.rows;
  args.N = outPerGroup;
  args.K = p.K;
  args.A = a;
  args.lda = std::max<int64_t>(p.K, 1);
  args.packedB = packedB_ + g * groupPacked_ + p.packed;
  args.C = product;
  args.ldc = outPerGroup;
  gemmPackedTile(args, 0, task.rows, 0, outPerGroup);
  if (bias)
    for (int64_t r = 0; r < task.rows; ++r)
      for (int64_t m = 0; m < outPerGroup; ++m) product[r * outPerGroup + m] += bias[oc0 + m];
  applyFusedActivation(act, product, task.rows * outPerGroup);

  // Each output of the tile is this phase's alone: stored once.
  float* yb = y + n * yAddr_.batchStride;
  const int64_t vectorChannels = yAddr_.packed && oc0 % kChannelPack == 0 ? outPerGroup / kChannelPack * kChannelPack : 0;
  const int64_t yBlockStride = yAddr_.spatial * kChannelPack;
  float* yGroup = yb + yAddr_.channel(oc0);
  for (int64_t r = 0; r < task.rows; ++r) {
    const int64_t j = task.begin + r;
    const int64_t jw = j % p.count[2], jh = (j / p.count[2]) % p.count[1], jd = j / (p.count[2] * p.count[1]);
    const int64_t od = p.first[0] + jd * w.stride[0], oh = p.first[1] + jh * w.stride[1];
    const int64_t ow = p.first[2] + jw * w.stride[2];
    const int64_t s = (od * w.output[1] + oh) * w.output[2] + ow;
    const float* v = product + r * outPerGroup;
    for (int64_t m = 0; m < vectorChannels; m += kChannelPack)
      storeFloat4(yGroup + (m / kChannelPack) * yBlockStride + s * kChannelPack, loadFloat4(v + m));
    for (int64_t m = vectorChannels; m < outPerGroup; ++m) yb[yAddr_.channel(oc0 + m) + s * yAddr_.spatialStride] = v[m];
  }
}

}  // namespace tessera
