// CPU MaxPool / AveragePool / GlobalMaxPool / GlobalAveragePool.
//
// One kernel walks a plane of L lanes: an NC4HW4 channel block (L = 4, f32 4-D tensors) or
// an NCHW channel (L = 1: other ranks, other dtypes, and folded runs). Spatial dimensions
// are padded to 3 (D, H, W) so 1-D, 2-D and 3-D pools share it. MaxPool's Indices are
// flat NCHW offsets (column-major spatial order when storage_order = 1), stored NCHW.
// f32 NC4HW4 without Indices (a conv net's pools) reduces an output row's window rows into
// one row first, then along it (separableRow).
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_POOL_X86 1
#endif

#include "backends/cpu/CacheAligned.hpp"
#include "backends/cpu/ClaimedTasks.hpp"
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/CpuIsa.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "ops/Pool.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// separableRow's scratch row has this many pixels of the padding's value before and after
// the input's width, so the vector column pass reads a window's padded taps as it reads the
// others.
constexpr int64_t kRowMargin = 4;

#ifdef TESSERA_POOL_X86
// v = max(v, r) or v += r over n floats (a window row into the scratch row), 16 at a time.
// Four floats at a time (Float4), the row pass had taken most of ResNet-18's MaxPool.
__attribute__((target("avx512f"))) void reduceRowAvx512(float* v, const float* r, int64_t n, bool isMax) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 a = _mm512_loadu_ps(v + i), b = _mm512_loadu_ps(r + i);
    _mm512_storeu_ps(v + i, isMax ? _mm512_maskz_max_ps(0xFFFF, a, b) : _mm512_maskz_add_ps(0xFFFF, a, b));
  }
  if (i == n) return;
  const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1);
  const __m512 a = _mm512_maskz_loadu_ps(tail, v + i), b = _mm512_maskz_loadu_ps(tail, r + i);
  _mm512_mask_storeu_ps(v + i, tail, isMax ? _mm512_maskz_max_ps(0xFFFF, a, b) : _mm512_maskz_add_ps(0xFFFF, a, b));
}

// A 3-wide stride-2 max over the scratch row v (NC4HW4 pixels, kRowMargin of padding on each
// side): outputs [0, count), count a multiple of 4, the window of output o starting at pixel
// 2o - pad (pad <= kRowMargin). Four outputs a vector: the even and the odd pixels of two
// input vectors are one 128-bit lane shuffle each, the taps two pixels over those shifted by
// a lane. max(a, b) is (a > b ? a : b) as maxFloat4, the taps in the same order. (maskz
// forms throughout: the plain intrinsics' undefined pass-through trips GCC 12's
// uninitialised check.)
__attribute__((target("avx512f"))) void max3Stride2Avx512(const float* v, float* y, int64_t count, int64_t pad) {
  for (int64_t o = 0; o < count; o += 4) {
    const float* p = v + (2 * o - pad) * kChannelPack;
    const __m512 a = _mm512_loadu_ps(p), b = _mm512_loadu_ps(p + 16), c = _mm512_maskz_loadu_ps(0x000F, p + 32);
    const __m512 even = _mm512_maskz_shuffle_f32x4(0xFFFF, a, b, _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 odd = _mm512_maskz_shuffle_f32x4(0xFFFF, a, b, _MM_SHUFFLE(3, 1, 3, 1));
    const __m512 next = _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(0xFFFF, _mm512_castps_si512(c), _mm512_castps_si512(even), 4));
    _mm512_storeu_ps(y + o * kChannelPack, _mm512_maskz_max_ps(0xFFFF, _mm512_maskz_max_ps(0xFFFF, even, odd), next));
  }
}

// reduceRowAvx512 on AVX2: 8 floats at a time (n is a multiple of 4).
__attribute__((target("avx2"))) void reduceRowAvx2(float* v, const float* r, int64_t n, bool isMax) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 a = _mm256_loadu_ps(v + i), b = _mm256_loadu_ps(r + i);
    _mm256_storeu_ps(v + i, isMax ? _mm256_max_ps(a, b) : _mm256_add_ps(a, b));
  }
  if (i < n) {
    const __m128 a = _mm_loadu_ps(v + i), b = _mm_loadu_ps(r + i);
    _mm_storeu_ps(v + i, isMax ? _mm_max_ps(a, b) : _mm_add_ps(a, b));
  }
}

// max3Stride2Avx512 on AVX2: two outputs a vector (count a multiple of 2), the even and odd
// pixels and the taps two over each one 128-bit lane permute.
__attribute__((target("avx2"))) void max3Stride2Avx2(const float* v, float* y, int64_t count, int64_t pad) {
  for (int64_t o = 0; o < count; o += 2) {
    const float* p = v + (2 * o - pad) * kChannelPack;
    const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
    const __m256 c = _mm256_castps128_ps256(_mm_loadu_ps(p + 16));
    const __m256 even = _mm256_permute2f128_ps(a, b, 0x20), odd = _mm256_permute2f128_ps(a, b, 0x31);
    const __m256 next = _mm256_permute2f128_ps(b, c, 0x20);
    _mm256_storeu_ps(y + o * kChannelPack, _mm256_max_ps(_mm256_max_ps(even, odd), next));
  }
}
#endif

class CpuPool final : public Execution {
 public:
  CpuPool(Backend* b, const PoolParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>&, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    selectPackedData(inputs, inputs[0]->dtype() == DataType::kF32, in, out);
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    WindowGeometry g;
    TESSERA_RETURN_IF_ERROR(resolvePool(params_, inputs[0]->shape(), &g));
    geometry_ = g.padTo3D();
    xAddr_ = ChannelAddressing(inputs[0]->shape(), inputs[0]->layout());
    yAddr_ = ChannelAddressing(outputs[0]->shape(), outputs[0]->layout());
    if (xAddr_.packed != yAddr_.packed) return Status::internal("pooling needs X and Y in the same layout");
    const WindowGeometry& w = geometry_;
    columnTaps_.resize(w.output[2]);
    for (int64_t ow = 0; ow < w.output[2]; ++ow)
      columnTaps_[ow] = tapRange(ow * w.stride[2] - w.padBegin[2], w.kernel[2], w.dilation[2], w.input[2], w.padBegin[2],
                                 w.padEnd[2]);
    workers_ = cpuPool(*this).threads();
    wide_ = cpuIsa() == CpuIsa::kAvx512;
    avx2_ = cpuIsa() == CpuIsa::kAvx2;
    // The vector column pass: MaxPool 3 wide at stride 2 (ResNets' stem pool), its padding
    // within the scratch row's margins.
    max3Stride2_ = (wide_ || avx2_) && params_.isMax() && w.kernel[2] == 3 && w.stride[2] == 2 &&
                   w.dilation[2] == 1 && w.padBegin[2] <= kRowMargin && w.padEnd[2] <= kRowMargin;
    rowFloats_ = (w.input[2] + 2 * kRowMargin) * kChannelPack;
    // The margins hold the padding's value for the column pass (taps that never win a max);
    // the row passes write only between them, so they are filled once here.
    rowScratch_.assign(xAddr_.packed ? workers_ * rowFloats_ : 0,
                       max3Stride2_ ? std::numeric_limits<float>::lowest() : 0.f);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    int64_t* indices = outputs.size() > 1 && outputs[1] ? outputs[1]->data<int64_t>() : nullptr;
    bool ok = false;
    switch (inputs[0]->dtype()) {
      case DataType::kF32: ok = run<float>(inputs, outputs, indices); break;
      case DataType::kF64: ok = run<double>(inputs, outputs, indices); break;
      case DataType::kU8: ok = run<uint8_t>(inputs, outputs, indices); break;
      case DataType::kI8: ok = run<int8_t>(inputs, outputs, indices); break;
      default: break;
    }
    if (!ok) return Status::unsupported(std::string("pooling on ") + dataTypeName(inputs[0]->dtype()));
    return Status::ok();
  }

 private:
  template <typename T>
  bool run(const Tensors& inputs, const Tensors& outputs, int64_t* indices) {
    const T* x = inputs[0]->data<T>();
    T* y = outputs[0]->data<T>();
    const int L = xAddr_.packed ? kChannelPack : 1;
    const int64_t planes = xAddr_.batch * (xAddr_.packed ? channelBlocks(xAddr_.channels) : xAddr_.channels);
    const WindowGeometry& g = geometry_;
    const int64_t rows = planes * g.output[0] * g.output[1];
    if (std::is_same<T, float>::value && L == kChannelPack && !indices) {
      // Tasks of whole output rows, each worker one scratch row.
      const int64_t grain = std::max<int64_t>(1, std::min<int64_t>(8, rows / (8 * workers_)));
      const int64_t tasks = (rows + grain - 1) / grain;
      runClaimedTasks(cpuPool(*this), tasks, static_cast<int>(std::min<int64_t>(workers_, tasks)), [&](int64_t t, int64_t worker) {
        float* v = rowScratch_.data() + worker * rowFloats_ + kRowMargin * kChannelPack;
        for (int64_t r = t * grain; r < std::min(rows, (t + 1) * grain); ++r) {
          const int64_t plane = r / (g.output[0] * g.output[1]);
          const int64_t oh = r % g.output[1], od = (r / g.output[1]) % g.output[0];
          separableRow(reinterpret_cast<const float*>(x) + plane * g.inputCount() * L,
                       reinterpret_cast<float*>(y) + (plane * g.outputCount() + (od * g.output[1] + oh) * g.output[2]) * L,
                       od, oh, v);
        }
      });
      zeroPaddingLanes(y, yAddr_);
      return true;
    }
    cpuPool(*this).parallelFor(rows, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t plane = r / (g.output[0] * g.output[1]);
        const int64_t oh = r % g.output[1], od = (r / g.output[1]) % g.output[0];
        const T* xp = x + plane * g.inputCount() * L;
        T* yp = y + (plane * g.outputCount() + (od * g.output[1] + oh) * g.output[2]) * L;
        if (L == kChannelPack) {
          row<T, kChannelPack>(xp, yp, plane, od, oh, indices);
        } else {
          row<T, 1>(xp, yp, plane, od, oh, indices);
        }
      }
    }, 1);
    zeroPaddingLanes(y, yAddr_);
    return true;
  }

  // Window taps k in [lo, hi) land inside the input; `padded` counts those inside the
  // padded input (the AveragePool divisor with count_include_pad).
  struct TapRange {
    int64_t lo, hi, padded;
  };
  static TapRange tapRange(int64_t start, int64_t kernel, int64_t dilation, int64_t in, int64_t padBegin, int64_t padEnd) {
    auto firstAtLeast = [&](int64_t bound) {  // smallest k >= 0 with start + k*dilation >= bound
      if (bound <= start) return int64_t(0);
      return dilation == 1 ? bound - start : (bound - start + dilation - 1) / dilation;
    };
    TapRange r;
    r.lo = std::min(kernel, firstAtLeast(0));
    r.hi = std::max(r.lo, std::min(kernel, firstAtLeast(in)));
    const int64_t plo = std::min(kernel, firstAtLeast(-padBegin));
    r.padded = std::max<int64_t>(0, std::min(kernel, firstAtLeast(in + padEnd)) - plo);
    return r;
  }

  // One output row (fixed od, oh) of one plane. Only taps inside the input are visited.
  template <typename T, int L>
  void row(const T* x, T* y, int64_t plane, int64_t od, int64_t oh, int64_t* indices) const {
    using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
    const WindowGeometry& g = geometry_;
    const bool isMax = params_.isMax();
    const int64_t d0 = od * g.stride[0] - g.padBegin[0], h0 = oh * g.stride[1] - g.padBegin[1];
    const TapRange rd = tapRange(d0, g.kernel[0], g.dilation[0], g.input[0], g.padBegin[0], g.padEnd[0]);
    const TapRange rh = tapRange(h0, g.kernel[1], g.dilation[1], g.input[1], g.padBegin[1], g.padEnd[1]);
    for (int64_t ow = 0; ow < g.output[2]; ++ow) {
      const int64_t w0 = ow * g.stride[2] - g.padBegin[2];
      const TapRange rw = tapRange(w0, g.kernel[2], g.dilation[2], g.input[2], g.padBegin[2], g.padEnd[2]);
      T* out = y + ow * L;
      if (isMax) {
        T best[L];
        int64_t bestAt[L];
        for (int l = 0; l < L; ++l) { best[l] = std::numeric_limits<T>::lowest(); bestAt[l] = -1; }
        for (int64_t kd = rd.lo; kd < rd.hi; ++kd)
          for (int64_t kh = rh.lo; kh < rh.hi; ++kh) {
            const int64_t rowStart = ((d0 + kd * g.dilation[0]) * g.input[1] + h0 + kh * g.dilation[1]) * g.input[2];
            for (int64_t kw = rw.lo; kw < rw.hi; ++kw) {
              const int64_t s = rowStart + w0 + kw * g.dilation[2];
              const T* v = x + s * L;
              if (indices) {
                for (int l = 0; l < L; ++l)
                  if (v[l] > best[l] || bestAt[l] < 0) { best[l] = v[l]; bestAt[l] = s; }
              } else {
                for (int l = 0; l < L; ++l) best[l] = v[l] > best[l] ? v[l] : best[l];
              }
            }
          }
        for (int l = 0; l < L; ++l) out[l] = best[l];
        if (indices) writeIndices<L>(indices, plane, od, oh, ow, bestAt);
      } else {
        Acc sum[L] = {};
        for (int64_t kd = rd.lo; kd < rd.hi; ++kd)
          for (int64_t kh = rh.lo; kh < rh.hi; ++kh) {
            const int64_t rowStart = ((d0 + kd * g.dilation[0]) * g.input[1] + h0 + kh * g.dilation[1]) * g.input[2];
            for (int64_t kw = rw.lo; kw < rw.hi; ++kw) {
              const T* v = x + (rowStart + w0 + kw * g.dilation[2]) * L;
              for (int l = 0; l < L; ++l) sum[l] += static_cast<Acc>(v[l]);
            }
          }
        const int64_t count = params_.countIncludePad ? rd.padded * rh.padded * rw.padded
                                                      : (rd.hi - rd.lo) * (rh.hi - rh.lo) * (rw.hi - rw.lo);
        const Acc scale = count > 0 ? Acc(1) / static_cast<Acc>(count) : Acc(0);
        for (int l = 0; l < L; ++l) out[l] = static_cast<T>(sum[l] * scale);
      }
    }
  }

  // Output row (od, oh) of one f32 NC4HW4 plane, without Indices: the window's rows inside x
  // reduced into v (the input's width), then each output's columns of v. One output at a
  // time over the whole window had been a chain of dependent max operations, a few cycles
  // each (ResNet-18's 3x3 stride-2 MaxPool at 112x112: 0.49 ms against ONNX Runtime's 0.10).
  void separableRow(const float* x, float* y, int64_t od, int64_t oh, float* v) const {
    const WindowGeometry& g = geometry_;
    const bool isMax = params_.isMax();
    const int64_t d0 = od * g.stride[0] - g.padBegin[0], h0 = oh * g.stride[1] - g.padBegin[1];
    const TapRange rd = tapRange(d0, g.kernel[0], g.dilation[0], g.input[0], g.padBegin[0], g.padEnd[0]);
    const TapRange rh = tapRange(h0, g.kernel[1], g.dilation[1], g.input[1], g.padBegin[1], g.padEnd[1]);
    const int64_t W = g.input[2];
    const Float4 empty = splatFloat4(isMax ? std::numeric_limits<float>::lowest() : 0.f);
    bool first = true;  // v holds nothing yet
    for (int64_t kd = rd.lo; kd < rd.hi; ++kd)
      for (int64_t kh = rh.lo; kh < rh.hi; ++kh, first = false) {
        const float* r = x + ((d0 + kd * g.dilation[0]) * g.input[1] + h0 + kh * g.dilation[1]) * W * kChannelPack;
        if (first) {
          std::memcpy(v, r, W * kChannelPack * sizeof(float));
#ifdef TESSERA_POOL_X86
        } else if (wide_) {
          reduceRowAvx512(v, r, W * kChannelPack, isMax);
        } else if (avx2_) {
          reduceRowAvx2(v, r, W * kChannelPack, isMax);
#endif
        } else if (isMax) {
          for (int64_t i = 0; i < W; ++i)
            storeFloat4(v + i * kChannelPack, maxFloat4(loadFloat4(v + i * kChannelPack), loadFloat4(r + i * kChannelPack)));
        } else {
          for (int64_t i = 0; i < W; ++i)
            storeFloat4(v + i * kChannelPack, loadFloat4(v + i * kChannelPack) + loadFloat4(r + i * kChannelPack));
        }
      }
    if (first)  // no window row inside x
      for (int64_t i = 0; i < W; ++i) storeFloat4(v + i * kChannelPack, empty);
    const int64_t rowTaps = (rd.hi - rd.lo) * (rh.hi - rh.lo), rowPadded = rd.padded * rh.padded;
    int64_t ow = 0;
#ifdef TESSERA_POOL_X86
    if (max3Stride2_) {
      const int64_t perVector = wide_ ? 4 : 2;
      ow = g.output[2] / perVector * perVector;
      if (wide_) max3Stride2Avx512(v, y, ow, g.padBegin[2]);
      else max3Stride2Avx2(v, y, ow, g.padBegin[2]);
    }
#endif
    for (; ow < g.output[2]; ++ow) {
      const TapRange& rw = columnTaps_[ow];
      const int64_t w0 = ow * g.stride[2] - g.padBegin[2];
      Float4 acc = empty;
      if (isMax) {
        for (int64_t kw = rw.lo; kw < rw.hi; ++kw) acc = maxFloat4(acc, loadFloat4(v + (w0 + kw * g.dilation[2]) * kChannelPack));
      } else {
        for (int64_t kw = rw.lo; kw < rw.hi; ++kw) acc += loadFloat4(v + (w0 + kw * g.dilation[2]) * kChannelPack);
        const int64_t count = params_.countIncludePad ? rowPadded * rw.padded : rowTaps * (rw.hi - rw.lo);
        acc *= splatFloat4(count > 0 ? 1.f / static_cast<float>(count) : 0.f);
      }
      storeFloat4(y + ow * kChannelPack, acc);
    }
  }

  // Indices are NCHW offsets into x; the spatial part is column-major for storage_order 1.
  template <int L>
  void writeIndices(int64_t* indices, int64_t plane, int64_t od, int64_t oh, int64_t ow, const int64_t* at) const {
    const WindowGeometry& g = geometry_;
    const int64_t inCount = g.inputCount(), outCount = g.outputCount();
    const int64_t channels = xAddr_.channels;
    const int64_t blocks = L == 1 ? channels : channelBlocks(channels);
    const int64_t n = plane / blocks, block = plane % blocks;
    for (int l = 0; l < L; ++l) {
      const int64_t c = block * L + l;
      if (c >= channels) break;
      int64_t s = at[l] < 0 ? 0 : at[l];
      if (params_.storageOrder == 1) {
        const int64_t iw = s % g.input[2], ih = (s / g.input[2]) % g.input[1], id = s / (g.input[2] * g.input[1]);
        s = (iw * g.input[1] + ih) * g.input[0] + id;
      }
      indices[(n * channels + c) * outCount + (od * g.output[1] + oh) * g.output[2] + ow] = (n * channels + c) * inCount + s;
    }
  }

  PoolParams params_;
  WindowGeometry geometry_;
  ChannelAddressing xAddr_, yAddr_;
  std::vector<TapRange> columnTaps_;  // per output column: its window's columns inside x
  int workers_ = 1;
  int64_t rowFloats_ = 0;     // a scratch row: x's width and kRowMargin pixels on each side
  AlignedFloats rowScratch_;  // per worker: one row (separableRow)
  bool wide_ = false;         // AVX-512 row and column passes
  bool avx2_ = false;         // AVX2 ones
  bool max3Stride2_ = false;  // the column pass of max3Stride2Avx512 / Avx2
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.empty() || !inputs[0]) return nullptr;
  PoolParams p;
  if (!PoolParams::parse(node, &p).isOk()) return nullptr;
  const DataType t = inputs[0]->dtype();
  const bool floating = t == DataType::kF32 || t == DataType::kF64;
  const bool integer = t == DataType::kU8 || t == DataType::kI8;
  if (!floating && !(integer && p.isMax())) return nullptr;
  return std::make_unique<CpuPool>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, MaxPool, create);
TESSERA_REGISTER_EXECUTION(kCPU, AveragePool, create);
TESSERA_REGISTER_EXECUTION(kCPU, GlobalMaxPool, create);
TESSERA_REGISTER_EXECUTION(kCPU, GlobalAveragePool, create);

}  // namespace tessera
