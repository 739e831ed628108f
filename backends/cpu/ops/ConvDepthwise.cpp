// Depthwise Conv on NC4HW4: each output block of 4 channels reads only its own input block,
// so a direct loop over (kh, kw) with 4-wide multiply-adds beats im2col + GEMM. Also runs on
// NCHW (one lane per plane) when the Session folds the op on constant inputs.
#include "backends/cpu/ops/ConvDepthwise.hpp"

#include <algorithm>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_DEPTHWISE_X86 1
#endif

#include "backends/cpu/ClaimedTasks.hpp"
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/CpuIsa.hpp"
#include "backends/cpu/FusedActivationPass.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "backends/cpu/SpatialBands.hpp"
#include "ops/Conv.hpp"

namespace tessera {

bool isDepthwiseConv2D(const ConvShape& c) {
  return c.window.rank == 2 && c.group == c.inChannels && c.outChannels == c.inChannels && c.group > 1;
}

namespace {

constexpr int64_t kMaxWindowRows = 16;  // window rows the vector kernels take

// One output row of a channel block on NC4HW4: window rows `rows` (null for rows in the
// padding), each pointing at the input pixel of output 0's first tap (pixel -pw: with the
// stride, pixel sw * ow - pw + kw * dw of the row is tap kw of output ow), taps `wBlock`
// [KH][KW][4].
struct DepthwiseRow {
  const float* const* rows;
  const float* wBlock;
  const float* bias;
  int64_t KH, KW, dw;
  float* y;
  int64_t W, OW, pw;   // the input row's pixels, the output row's, the padding before
  int64_t ow0, count;  // the interior kernels' outputs [ow0, ow0 + count): AVX-512 a multiple of 4; AVX2 any
  RegisterClamp clamp;  // applied by the whole-row kernels (wholeRow, wholeRowAvx2) only
  // AVX2 at stride 2: the two input rows (as `rows`) an output row a little below reads first,
  // or null; each step fetches its span of them (setRowsAhead).
  const float* ahead[2] = {nullptr, nullptr};
};

#ifdef TESSERA_DEPTHWISE_X86
// Pixels S = 1..3 over from vector lo: its lanes from 4S on, then the first 4S of hi.
template <int S>
__attribute__((target("avx512f"), always_inline)) inline __m512 shifted(__m512i hi, __m512i lo) {
  return _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(0xFFFF, hi, lo, 4 * S));
}

// 128-bit lanes of a and b picked by SEL (vshuff32x4: two from a, then two from b).
template <int SEL>
__attribute__((target("avx512f"), always_inline)) inline __m512i lanes(__m512 a, __m512 b) {
  return _mm512_castps_si512(_mm512_maskz_shuffle_f32x4(0xFFFF, a, b, SEL));
}

// The KW taps of window row kh, each tap's 4 weights repeated over the 4 pixels of a vector.
template <int KW>
__attribute__((target("avx512f"), always_inline)) inline void rowTaps(const float* wBlock, int64_t kh,
                                                                      __m512 (&w)[KW]) {
  const float* wr = wBlock + kh * KW * 4;
  for (int k = 0; k < KW; ++k) w[k] = _mm512_maskz_broadcast_f32x4(0xFFFF, _mm_loadu_ps(wr + 4 * k));
}

// Which lanes of the vector of pixels [p, p + 4) lie inside [0, n): 4 lanes a pixel.
inline __mmask16 insideLanes(int64_t p, int64_t n) {
  const int64_t lo = std::clamp<int64_t>(-p, 0, 4), hi = std::clamp<int64_t>(n - p, 0, 4);
  return static_cast<__mmask16>((0xFFFFu >> (16 - 4 * hi)) & (0xFFFFu << (4 * lo)));
}

// Output vectors i < V of a step from output ow (4 pixels each) into the row; at a row's end
// (EDGE) only the lanes of outputs before OW.
template <bool EDGE, int V>
__attribute__((target("avx512f"), always_inline)) inline void storeStep(const DepthwiseRow& r, int64_t ow,
                                                                         const __m512 (&acc)[V]) {
  float* y = r.y + ow * 4;
  const __m512 lo = _mm512_set1_ps(r.clamp.lo), hi = _mm512_set1_ps(r.clamp.hi);
#pragma GCC unroll 8
  for (int i = 0; i < V; ++i) {
    __m512 v = acc[i];
    if (r.clamp.upper) v = _mm512_maskz_min_ps(0xFFFF, v, hi);
    if (r.clamp.lower) v = _mm512_maskz_max_ps(0xFFFF, v, lo);
    if (EDGE) _mm512_mask_storeu_ps(y + 16 * i, insideLanes(ow + 4 * i, r.OW), v);
    else _mm512_storeu_ps(y + 16 * i, v);
  }
}

// One step of an output row (wholeRow) for stride 1, KW = 3 or 5, no dilation: 4V outputs
// (32, or 16 at a row's end). Each window row's 4V + 4 input pixels are loaded once, in V + 1
// vectors, and the taps one to three pixels over are built from neighbouring vectors
// (valignd) instead of loaded at 4-float offsets, which split cache lines. Eight
// accumulators keep both FMA pipes busy through the multiply-add latency. A step whose window reaches into the padding, or whose outputs pass the row's
// end (EDGE), loads and stores through lane masks: the padding reads as zeros and nothing
// outside the row is touched. The row's ends thus cost one step each; they had gone through
// per-pixel paths that took as long as the rest of the row (80-wide rows: 16 of 80 outputs,
// half of the op's time). One thread, rec's 5x5 on 240 channels at 6x160 in a standalone
// loop: 64 -> 167-173 GFLOP/s for the steps inside.
template <int KW, bool EDGE, int V = 8>
__attribute__((target("avx512f,fma"), always_inline)) inline void stride1Step(const DepthwiseRow& r, int64_t ow,
                                                                                __m512 bias) {
  // The last vector holds only the KW - 1 pixels past the 4V (nothing past them is read).
  constexpr __mmask16 kTail = static_cast<__mmask16>((1u << ((KW - 1) * 4)) - 1);
  __mmask16 in[V + 1];
#pragma GCC unroll 8
  for (int i = 0; i <= V; ++i) in[i] = EDGE ? insideLanes(ow - r.pw + 4 * i, r.W) : 0xFFFF;
  in[V] &= kTail;
  __m512 acc[V];
#pragma GCC unroll 8
  for (int i = 0; i < V; ++i) acc[i] = bias;
  for (int64_t kh = 0; kh < r.KH; ++kh) {
    if (!r.rows[kh]) continue;
    const float* xr = r.rows[kh] + ow * 4;
    __m512i x[V + 1];
#pragma GCC unroll 8
    for (int i = 0; i < V; ++i) x[i] = EDGE ? _mm512_maskz_loadu_epi32(in[i], xr + 16 * i) : _mm512_loadu_si512(xr + 16 * i);
    x[V] = _mm512_maskz_loadu_epi32(in[V], xr + 16 * V);
    __m512 w[KW];
    rowTaps<KW>(r.wBlock, kh, w);
#pragma GCC unroll 8
    for (int i = 0; i < V; ++i) {
      acc[i] = _mm512_fmadd_ps(_mm512_castsi512_ps(x[i]), w[0], acc[i]);
      acc[i] = _mm512_fmadd_ps(shifted<1>(x[i + 1], x[i]), w[1], acc[i]);
      acc[i] = _mm512_fmadd_ps(shifted<2>(x[i + 1], x[i]), w[2], acc[i]);
      if constexpr (KW == 5) {
        acc[i] = _mm512_fmadd_ps(shifted<3>(x[i + 1], x[i]), w[3], acc[i]);
        acc[i] = _mm512_fmadd_ps(_mm512_castsi512_ps(x[i + 1]), w[4], acc[i]);
      }
    }
  }
  storeStep<EDGE>(r, ow, acc);
}

// One step of an output row (wholeRow) for stride 2, KW = 3 or 5, no dilation: 16 outputs
// from the 33-35 input pixels they read, loaded once in 9 vectors. The even pixels of two neighbouring
// vectors are one 128-bit lane shuffle (vshuff32x4), the odd ones another, and the taps two
// or four pixels over are those shifted by a lane (valignd): no 4-float-offset loads, no
// per-pixel gathers. The row's ends go through lane masks as in stride1Step. (With V = 2, 8
// outputs from 17-19 pixels in 5 vectors: MobileNets' 7-wide rows had computed 16.)
template <int KW, bool EDGE, int V = 4>
__attribute__((target("avx512f,fma"), always_inline)) inline void stride2Step(const DepthwiseRow& r, int64_t ow,
                                                                                __m512 bias) {
  // V output vectors a step (4, or 2 at the end of a row of 8 or fewer outputs). The last
  // input vector holds only pixels 8V .. 8V + KW - 3 (nothing past them is read).
  constexpr __mmask16 kTail = static_cast<__mmask16>((1u << ((KW - 2) * 4)) - 1);
  __mmask16 in[2 * V + 1];
#pragma GCC unroll 8
  for (int i = 0; i <= 2 * V; ++i) in[i] = EDGE ? insideLanes(2 * ow - r.pw + 4 * i, r.W) : 0xFFFF;
  in[2 * V] &= kTail;
  __m512 acc[V];
#pragma GCC unroll 4
  for (int i = 0; i < V; ++i) acc[i] = bias;
  for (int64_t kh = 0; kh < r.KH; ++kh) {
    if (!r.rows[kh]) continue;
    const float* xr = r.rows[kh] + 2 * ow * 4;
    __m512 x[2 * V + 1];
#pragma GCC unroll 8
    for (int i = 0; i < 2 * V; ++i) x[i] = EDGE ? _mm512_maskz_loadu_ps(in[i], xr + 16 * i) : _mm512_loadu_ps(xr + 16 * i);
    x[2 * V] = _mm512_maskz_loadu_ps(in[2 * V], xr + 16 * 2 * V);
    __m512i even[V + 1], odd[V + 1];  // pixels 8i, 8i+2, 8i+4, 8i+6 and 8i+1, ..., 8i+7
#pragma GCC unroll 4
    for (int i = 0; i < V; ++i) {
      even[i] = lanes<_MM_SHUFFLE(2, 0, 2, 0)>(x[2 * i], x[2 * i + 1]);
      odd[i] = lanes<_MM_SHUFFLE(3, 1, 3, 1)>(x[2 * i], x[2 * i + 1]);
    }
    even[V] = lanes<_MM_SHUFFLE(2, 0, 2, 0)>(x[2 * V], x[2 * V]);  // pixels 32, 34 in lanes 0, 1
    odd[V] = lanes<_MM_SHUFFLE(3, 1, 3, 1)>(x[2 * V], x[2 * V]);   // pixel 33 in lane 0
    __m512 w[KW];
    rowTaps<KW>(r.wBlock, kh, w);
#pragma GCC unroll 4
    for (int i = 0; i < V; ++i) {
      acc[i] = _mm512_fmadd_ps(_mm512_castsi512_ps(even[i]), w[0], acc[i]);
      acc[i] = _mm512_fmadd_ps(_mm512_castsi512_ps(odd[i]), w[1], acc[i]);
      acc[i] = _mm512_fmadd_ps(shifted<1>(even[i + 1], even[i]), w[2], acc[i]);
      if constexpr (KW == 5) {
        acc[i] = _mm512_fmadd_ps(shifted<1>(odd[i + 1], odd[i]), w[3], acc[i]);
        acc[i] = _mm512_fmadd_ps(shifted<2>(even[i + 1], even[i]), w[4], acc[i]);
      }
    }
  }
  storeStep<EDGE>(r, ow, acc);
}

// A whole output row at stride S (1 or 2) in steps of 32 (stride 1) or 16 (stride 2)
// outputs. A step is inside when its input pixels [S ow - pw, S ow - pw + 32 + KW - S) lie
// in the row and its outputs before OW; the others are EDGE steps (at stride 1, 16 or 8
// outputs when no more are left: MobileNets' last planes are 7 wide).
template <int S, int KW>
__attribute__((target("avx512f,fma"))) void wholeRow(const DepthwiseRow& r) {
  constexpr int kStep = S == 1 ? 32 : 16;
  const __m512 bias = _mm512_maskz_broadcast_f32x4(0xFFFF, _mm_loadu_ps(r.bias));
  for (int64_t ow = 0; ow < r.OW; ow += kStep) {
    const int64_t p0 = S * ow - r.pw;
    const bool inside = p0 >= 0 && p0 + S * kStep + KW - S <= r.W && ow + kStep <= r.OW;
    if constexpr (S == 1) {
      if (inside) stride1Step<KW, false>(r, ow, bias);
      else if (r.OW - ow <= kStep / 4) stride1Step<KW, true, 2>(r, ow, bias);
      else if (r.OW - ow <= kStep / 2) stride1Step<KW, true, 4>(r, ow, bias);
      else stride1Step<KW, true>(r, ow, bias);
    } else {
      if (inside) stride2Step<KW, false>(r, ow, bias);
      else if (r.OW - ow <= kStep / 2) stride2Step<KW, true, 2>(r, ow, bias);
      else stride2Step<KW, true>(r, ow, bias);
    }
  }
}

// Two output rows at once for a KW x KW window (3 or 5) at stride 1, KH = KW, no dilation:
// output rows oh and oh + 1 read input rows `rows[0..KW-1]` and `rows[1..KW]`, so each of the
// KW + 1 rows is loaded, and its taps one to KW - 1 pixels over built (valignd), once for
// both: for 3x3, 4 rows' loads and shifts for 2 output rows instead of 6. A step is 16
// outputs of each row (8 accumulators): the 32-output single-row step was bound by its shifts
// (6 a vector, one a cycle), and on narrow planes (16 or fewer outputs a row: MobileNets'
// last stages) its 4-accumulator step waited on the multiply-add latency, every row paying
// its edge masks alone. EDGE as in stride1Step: the masks serve both rows.
template <int KW, bool EDGE, int V = 4>
__attribute__((target("avx512f,fma"), always_inline)) inline void rowPairStep(const DepthwiseRow& r,
                                                                               const float* const (&rows)[KW + 1],
                                                                               float* y0, float* y1, int64_t ow,
                                                                               __m512 bias) {
  // The last vector holds only the KW - 1 pixels past the 4V (nothing past them is read).
  constexpr __mmask16 kTail = static_cast<__mmask16>((1u << ((KW - 1) * 4)) - 1);
  __mmask16 in[V + 1];
#pragma GCC unroll 8
  for (int i = 0; i <= V; ++i) in[i] = EDGE ? insideLanes(ow - r.pw + 4 * i, r.W) : 0xFFFF;
  in[V] &= kTail;
  __m512 a0[V], a1[V];
#pragma GCC unroll 4
  for (int i = 0; i < V; ++i) a0[i] = a1[i] = bias;
#pragma GCC unroll 6
  for (int j = 0; j <= KW; ++j) {
    const float* xr = rows[j] + ow * 4;
    __m512i x[V + 1];
#pragma GCC unroll 4
    for (int i = 0; i < V; ++i) x[i] = EDGE ? _mm512_maskz_loadu_epi32(in[i], xr + 16 * i) : _mm512_loadu_si512(xr + 16 * i);
    x[V] = _mm512_maskz_loadu_epi32(in[V], xr + 16 * V);
    __m512 w0[KW], w1[KW];  // window row j of output row oh, window row j - 1 of oh + 1
    if (j < KW) rowTaps<KW>(r.wBlock, j, w0);
    if (j > 0) rowTaps<KW>(r.wBlock, j - 1, w1);
#pragma GCC unroll 4
    for (int i = 0; i < V; ++i) {
      __m512 t[KW];  // the taps 0 .. KW - 1 pixels over
      t[0] = _mm512_castsi512_ps(x[i]);
      t[1] = shifted<1>(x[i + 1], x[i]);
      t[2] = shifted<2>(x[i + 1], x[i]);
      if constexpr (KW == 5) {
        t[3] = shifted<3>(x[i + 1], x[i]);
        t[4] = _mm512_castsi512_ps(x[i + 1]);
      }
#pragma GCC unroll 5
      for (int k = 0; k < KW; ++k) {
        if (j < KW) a0[i] = _mm512_fmadd_ps(t[k], w0[k], a0[i]);
        if (j > 0) a1[i] = _mm512_fmadd_ps(t[k], w1[k], a1[i]);
      }
    }
  }
  DepthwiseRow row = r;
  row.y = y0;
  storeStep<EDGE>(row, ow, a0);
  row.y = y1;
  storeStep<EDGE>(row, ow, a1);
}

// Output rows oh and oh + 1 (y0, y1) through rowPairSteps: 16 outputs a step, inside where
// its input pixels [ow - pw, ow - pw + 16 + KW - 1) lie in the row and its outputs before OW,
// else EDGE (8 outputs when no more than 8 are left).
template <int KW>
__attribute__((target("avx512f,fma"))) void wholeRowPair(const DepthwiseRow& r, const float* const (&rows)[KW + 1],
                                                         float* y0, float* y1) {
  constexpr int kStep = 16;
  const __m512 bias = _mm512_maskz_broadcast_f32x4(0xFFFF, _mm_loadu_ps(r.bias));
  for (int64_t ow = 0; ow < r.OW; ow += kStep) {
    const int64_t p0 = ow - r.pw;
    if (p0 >= 0 && p0 + kStep + KW - 1 <= r.W && ow + kStep <= r.OW) rowPairStep<KW, false>(r, rows, y0, y1, ow, bias);
    else if (r.OW - ow <= kStep / 2) rowPairStep<KW, true, 2>(r, rows, y0, y1, ow, bias);
    else rowPairStep<KW, true>(r, rows, y0, y1, ow, bias);
  }
}

// rowPairStep at stride 2 (both ways): output rows oh and oh + 1 read input rows
// `rows[0..KW-1]` and `rows[2..KW+1]`, so each of the KW + 2 rows is loaded and split into
// its even and odd pixels (stride2Step) once for both: 5 rows for 2 output rows of a 3x3
// instead of 6, and 8 accumulators instead of 4.
template <int KW, bool EDGE, int V = 4>
__attribute__((target("avx512f,fma"), always_inline)) inline void rowPairStep2(const DepthwiseRow& r,
                                                                                const float* const (&rows)[KW + 2],
                                                                                float* y0, float* y1, int64_t ow,
                                                                                __m512 bias) {
  constexpr __mmask16 kTail = static_cast<__mmask16>((1u << ((KW - 2) * 4)) - 1);
  __mmask16 in[2 * V + 1];
#pragma GCC unroll 8
  for (int i = 0; i <= 2 * V; ++i) in[i] = EDGE ? insideLanes(2 * ow - r.pw + 4 * i, r.W) : 0xFFFF;
  in[2 * V] &= kTail;
  __m512 a0[V], a1[V];
#pragma GCC unroll 4
  for (int i = 0; i < V; ++i) a0[i] = a1[i] = bias;
#pragma GCC unroll 7
  for (int j = 0; j < KW + 2; ++j) {
    const float* xr = rows[j] + 2 * ow * 4;
    __m512 x[2 * V + 1];
#pragma GCC unroll 8
    for (int i = 0; i < 2 * V; ++i) x[i] = EDGE ? _mm512_maskz_loadu_ps(in[i], xr + 16 * i) : _mm512_loadu_ps(xr + 16 * i);
    x[2 * V] = _mm512_maskz_loadu_ps(in[2 * V], xr + 16 * 2 * V);
    __m512i even[V + 1], odd[V + 1];
#pragma GCC unroll 4
    for (int i = 0; i < V; ++i) {
      even[i] = lanes<_MM_SHUFFLE(2, 0, 2, 0)>(x[2 * i], x[2 * i + 1]);
      odd[i] = lanes<_MM_SHUFFLE(3, 1, 3, 1)>(x[2 * i], x[2 * i + 1]);
    }
    even[V] = lanes<_MM_SHUFFLE(2, 0, 2, 0)>(x[2 * V], x[2 * V]);
    odd[V] = lanes<_MM_SHUFFLE(3, 1, 3, 1)>(x[2 * V], x[2 * V]);
    __m512 w0[KW], w1[KW];  // window row j of output row oh, window row j - 2 of oh + 1
    if (j < KW) rowTaps<KW>(r.wBlock, j, w0);
    if (j >= 2) rowTaps<KW>(r.wBlock, j - 2, w1);
#pragma GCC unroll 4
    for (int i = 0; i < V; ++i) {
      __m512 t[KW];  // the taps 0 .. KW - 1 pixels over
      t[0] = _mm512_castsi512_ps(even[i]);
      t[1] = _mm512_castsi512_ps(odd[i]);
      t[2] = shifted<1>(even[i + 1], even[i]);
      if constexpr (KW == 5) {
        t[3] = shifted<1>(odd[i + 1], odd[i]);
        t[4] = shifted<2>(even[i + 1], even[i]);
      }
#pragma GCC unroll 5
      for (int k = 0; k < KW; ++k) {
        if (j < KW) a0[i] = _mm512_fmadd_ps(t[k], w0[k], a0[i]);
        if (j >= 2) a1[i] = _mm512_fmadd_ps(t[k], w1[k], a1[i]);
      }
    }
  }
  DepthwiseRow row = r;
  row.y = y0;
  storeStep<EDGE>(row, ow, a0);
  row.y = y1;
  storeStep<EDGE>(row, ow, a1);
}

// Output rows oh and oh + 1 at stride 2 through rowPairStep2, in stride2Step's steps of 16.
template <int KW>
__attribute__((target("avx512f,fma"))) void wholeRowPair2(const DepthwiseRow& r, const float* const (&rows)[KW + 2],
                                                          float* y0, float* y1) {
  constexpr int kStep = 16;
  const __m512 bias = _mm512_maskz_broadcast_f32x4(0xFFFF, _mm_loadu_ps(r.bias));
  for (int64_t ow = 0; ow < r.OW; ow += kStep) {
    const int64_t p0 = 2 * ow - r.pw;
    if (p0 >= 0 && p0 + 2 * kStep + KW - 2 <= r.W && ow + kStep <= r.OW) rowPairStep2<KW, false>(r, rows, y0, y1, ow, bias);
    else if (r.OW - ow <= kStep / 2) rowPairStep2<KW, true, 2>(r, rows, y0, y1, ow, bias);
    else rowPairStep2<KW, true>(r, rows, y0, y1, ow, bias);
  }
}

// What wholeRows needs to find each output row's window rows: the block's input plane x
// (its pixels 4 floats each) and the window's vertical geometry.
struct DepthwisePlane {
  const float* x;
  int64_t H, sh, ph, dh;
};

// Output rows [oh0, oh1) of one block through wholeRow<S, KW>, `r` holding everything but the
// rows and y (y at row oh0): the per-row set-up of the general path (the columns inside the
// input, the kernel's choice, two divisions) done once. On 7x7 planes it had cost as much as
// the row itself.
template <int S, int KW>
__attribute__((target("avx512f,fma"))) void wholeRows(DepthwiseRow r, const DepthwisePlane& p, int64_t oh0,
                                                      int64_t oh1) {
  const float* rows[kMaxWindowRows];
  r.rows = rows;
  for (int64_t oh = oh0; oh < oh1; ++oh, r.y += r.OW * 4) {
    // Rows oh and oh + 1 together where the window moves S rows down the plane as it moves S
    // pixels along a row, and the KW + S input rows the two read all lie inside x.
    const int64_t ih = S * oh - p.ph;
    if (p.sh == S && r.KH == KW && p.dh == 1 && oh + 1 < oh1 && ih >= 0 && ih + KW + S <= p.H) {
      const float* pair[KW + S];
      for (int j = 0; j < KW + S; ++j) pair[j] = p.x + ((ih + j) * r.W - r.pw) * 4;
      if constexpr (S == 1) wholeRowPair<KW>(r, pair, r.y, r.y + r.OW * 4);
      else wholeRowPair2<KW>(r, pair, r.y, r.y + r.OW * 4);
      ++oh;
      r.y += r.OW * 4;
      continue;
    }
    for (int64_t kh = 0; kh < r.KH; ++kh) {
      const int64_t ih = oh * p.sh - p.ph + kh * p.dh;
      rows[kh] = ih < 0 || ih >= p.H ? nullptr : p.x + (ih * r.W - r.pw) * 4;
    }
    wholeRow<S, KW>(r);
  }
}

using WholeRowsFn = void (*)(DepthwiseRow, const DepthwisePlane&, int64_t, int64_t);

// Four adjacent pixels of a block are 16 contiguous floats, so one 512-bit multiply-add does
// four outputs (the tap's 4 weights repeated); four accumulators for 16 outputs at a time.
__attribute__((target("avx512f,fma"))) void interiorRowAvx512(const DepthwiseRow& r) {
  const __m512 bias = _mm512_maskz_broadcast_f32x4(0xFFFF, _mm_loadu_ps(r.bias));
  const int64_t end = r.ow0 + r.count;
  int64_t ow = r.ow0;
  for (; ow + 16 <= end; ow += 16) {
    __m512 a0 = bias, a1 = bias, a2 = bias, a3 = bias;
    for (int64_t kh = 0; kh < r.KH; ++kh) {
      if (!r.rows[kh]) continue;
      const float* xr = r.rows[kh] + ow * 4;
      const float* wr = r.wBlock + kh * r.KW * 4;
      for (int64_t kw = 0; kw < r.KW; ++kw) {
        const __m512 w = _mm512_maskz_broadcast_f32x4(0xFFFF, _mm_loadu_ps(wr + kw * 4));
        const float* xp = xr + kw * r.dw * 4;
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(xp), w, a0);
        a1 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + 16), w, a1);
        a2 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + 32), w, a2);
        a3 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + 48), w, a3);
      }
    }
    float* y = r.y + ow * 4;
    _mm512_storeu_ps(y, a0);
    _mm512_storeu_ps(y + 16, a1);
    _mm512_storeu_ps(y + 32, a2);
    _mm512_storeu_ps(y + 48, a3);
  }
  for (; ow + 4 <= end; ow += 4) {
    __m512 a = bias;
    for (int64_t kh = 0; kh < r.KH; ++kh) {
      if (!r.rows[kh]) continue;
      const float* xr = r.rows[kh] + ow * 4;
      const float* wr = r.wBlock + kh * r.KW * 4;
      for (int64_t kw = 0; kw < r.KW; ++kw)
        a = _mm512_fmadd_ps(_mm512_loadu_ps(xr + kw * r.dw * 4), _mm512_maskz_broadcast_f32x4(0xFFFF, _mm_loadu_ps(wr + kw * 4)), a);
    }
    _mm512_storeu_ps(r.y + ow * 4, a);
  }
}
#endif

#ifdef TESSERA_DEPTHWISE_X86
// The output columns [lo, hi) of a row whose whole window lies inside the input row (no
// bounds checks there): W input pixels, OW outputs, KW taps dw apart, stride sw, padding pw.
struct InteriorColumns {
  int64_t lo, hi;
};
inline InteriorColumns interiorColumns(int64_t W, int64_t OW, int64_t KW, int64_t dw, int64_t sw, int64_t pw) {
  const int64_t lo = std::min(pw > 0 ? (pw + sw - 1) / sw : 0, OW);
  const int64_t last = W - 1 - (KW - 1) * dw + pw;
  return {lo, std::max(lo, std::min(last >= 0 ? last / sw + 1 : 0, OW))};
}

// Pixels p and p + S of a block (8 floats: one 256-bit vector), S = 1 or 2.
template <int S>
__attribute__((target("avx2"), always_inline)) inline __m256 pixelPair(const float* p) {
  if constexpr (S == 1) return _mm256_loadu_ps(p);
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm_loadu_ps(p + 4 * S), 1);
}

// Whether the 8-output step from ow needs masks: some of its outputs are outside the interior
// [ow0, ow0 + count) (their windows reach the padding).
inline bool rowStepMasked(const DepthwiseRow& r, int64_t ow) { return ow < r.ow0 || ow + 8 > r.ow0 + r.count; }

// The AVX2 interiors' 8-output steps over [ow0, ow0 + count), as
// `for (ow = firstAvx2Step(r); ow >= 0; ow = nextAvx2Step(r, ow))` (none when count < 8).
// Where count is not a multiple of 8 the last step is moved back to end at ow0 + count,
// recomputing a few outputs (the same values written twice) rather than leaving up to 7 to
// the 4-float and single-output code, which took as long as the rest of an 80-wide row.
inline int64_t firstAvx2Step(const DepthwiseRow& r) { return r.count >= 8 ? r.ow0 : -1; }
inline int64_t nextAvx2Step(const DepthwiseRow& r, int64_t ow) {
  const int64_t end = r.ow0 + r.count;
  return ow + 8 == end ? -1 : std::min(ow + 8, end - 8);
}

// For the pixel pairs j < N of an AVX2 step from output ow (input pixels ow - pw + 2j and the
// next), the lanes of pixels inside the row: all ones where inside, zeros elsewhere.
template <int N>
__attribute__((target("avx2"), always_inline)) inline void pairsInside(const DepthwiseRow& r, int64_t ow,
                                                                      __m256i (&inside)[N]) {
  const __m256i half = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);  // the pair's pixel of each lane
#pragma GCC unroll 8
  for (int j = 0; j < N; ++j) {
    const __m256i p = _mm256_add_epi32(half, _mm256_set1_epi32(static_cast<int>(ow - r.pw + 2 * j)));
    inside[j] = _mm256_and_si256(_mm256_cmpgt_epi32(p, _mm256_set1_epi32(-1)),
                                 _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(r.W)), p));
  }
}

// An AVX2 step's 8 outputs from ow (vector i: outputs ow + 2i, ow + 2i + 1) into the row y,
// clamped; kNarrow (a row of fewer than 8 outputs): outputs from OW on are not stored.
template <bool kNarrow>
__attribute__((target("avx2"), always_inline)) inline void storeAvx2Step(const DepthwiseRow& r, float* yRow, int64_t ow,
                                                                        const __m256 (&acc)[4]) {
  float* y = yRow + ow * 4;
  const __m256 lo = _mm256_set1_ps(r.clamp.lo), hi = _mm256_set1_ps(r.clamp.hi);
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    __m256 v = acc[i];
    if (r.clamp.upper) v = _mm256_min_ps(v, hi);
    if (r.clamp.lower) v = _mm256_max_ps(v, lo);
    if constexpr (kNarrow) {
      // Whole vectors, then the first output of a pair that ends past OW alone: on AMD's Zen 2
      // and 3 a masked store costs ~15 cycles, 4 an 8-output step on MobileNets' 7x7 planes.
      const int64_t o = ow + 2 * i;
      if (o + 1 < r.OW) {
        _mm256_storeu_ps(y + 8 * i, v);
      } else if (o < r.OW) {
        _mm_storeu_ps(y + 8 * i, _mm256_castps256_ps128(v));
      }
    } else {
      _mm256_storeu_ps(y + 8 * i, v);
    }
  }
}

// Eight outputs of a row from ow on AVX2 at stride 1 for KW = 3 or 5 without dilation: each
// window row's 8 + KW - 1 input pixels are loaded once as pixel pairs (2j, 2j+1), and the odd
// pairs (2j+1, 2j+2) built from two neighbours by a 128-bit lane shuffle, instead of loading
// each tap's pairs (4-float-offset loads, a quarter of them splitting cache lines). Masked:
// pixels outside the row (the padding at its ends) are loaded as zeros and never touched;
// kNarrow (a row of fewer than 8 outputs, kMasked too): outputs from OW on are not stored.
template <int KW, bool kMasked, bool kNarrow = false>
__attribute__((target("avx2,fma"), always_inline)) inline void stepAvx2Stride1(const DepthwiseRow& r, int64_t ow,
                                                                             __m256 bias) {
  constexpr int kLoads = (8 + KW - 1 + 1) / 2;  // pairs covering pixels 0 .. 8 + KW - 2
  __m256i inside[kLoads];
  if constexpr (kMasked) pairsInside(r, ow, inside);
  __m256 acc[4] = {bias, bias, bias, bias};
  for (int64_t kh = 0; kh < r.KH; ++kh) {
    if (!r.rows[kh]) continue;
    const float* xr = r.rows[kh] + ow * 4;
    const float* wr = r.wBlock + kh * KW * 4;
    __m256 even[kLoads], odd[kLoads - 1];
#pragma GCC unroll 8
    for (int j = 0; j < kLoads; ++j)
      even[j] = kMasked ? _mm256_maskload_ps(xr + 8 * j, inside[j]) : _mm256_loadu_ps(xr + 8 * j);
#pragma GCC unroll 8
    for (int j = 0; j + 1 < kLoads; ++j) odd[j] = _mm256_permute2f128_ps(even[j], even[j + 1], 0x21);
#pragma GCC unroll 5
    for (int kw = 0; kw < KW; ++kw) {
      const __m256 w = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(wr + kw * 4));
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) acc[i] = _mm256_fmadd_ps(kw % 2 ? odd[i + kw / 2] : even[i + kw / 2], w, acc[i]);
    }
  }
  storeAvx2Step<kNarrow>(r, r.y, ow, acc);
}

// The span a stride-2 step from ow reads of r.ahead's rows (up to 19 pixels: 6 cache lines).
inline void prefetchStepAhead(const DepthwiseRow& r, int64_t ow) {
  for (const float* row : r.ahead) {
    if (!row) continue;
    const char* span = reinterpret_cast<const char*>(row + 2 * ow * 4);
    for (int line = 0; line < 6; ++line) __builtin_prefetch(span + line * kCacheLine);
  }
}

// Eight outputs of a row from ow on AVX2 at stride 2 for KW = 3 or 5 without dilation. Output
// vector i (outputs ow + 2i, ow + 2i + 1) at tap kw reads input pixels 4i + kw and 4i + kw + 2
// of the step (pixel 0: 2 ow - pw). Each window row's 14 + KW pixels are loaded once as pixel
// pairs (2m, 2m + 1), and a tap's pairs built from two neighbours by one 128-bit lane
// shuffle: their first pixels for even taps, their second for odd ones. The pixel-pair loads
// this replaces (two 128-bit loads a multiply-add) left the row's ends and rows of fewer than
// 16 outputs to the 4-float path: a 576-channel 14x14 -> 7x7 depthwise conv on a Zen 3 ran at
// 3x ONNX Runtime's time. kMasked and kNarrow as in stepAvx2Stride1.
template <int KW, bool kMasked, bool kNarrow = false>
__attribute__((target("avx2,fma"), always_inline)) inline void stepAvx2Stride2(const DepthwiseRow& r, int64_t ow,
                                                                             __m256 bias) {
  constexpr int kLoads = (14 + KW + 1) / 2;  // pairs covering pixels 0 .. 13 + KW (the last: its first pixel)
  __m256i inside[kLoads];
  if constexpr (kMasked) pairsInside(r, 2 * ow, inside);
  prefetchStepAhead(r, ow);
  __m256 acc[4] = {bias, bias, bias, bias};
  for (int64_t kh = 0; kh < r.KH; ++kh) {
    if (!r.rows[kh]) continue;
    const float* xr = r.rows[kh] + 2 * ow * 4;
    const float* wr = r.wBlock + kh * KW * 4;
    __m256 pair[kLoads];
#pragma GCC unroll 10
    for (int m = 0; m + 1 < kLoads; ++m)
      pair[m] = kMasked ? _mm256_maskload_ps(xr + 8 * m, inside[m]) : _mm256_loadu_ps(xr + 8 * m);
    // The last pair's second pixel is past the window (and may be past the tensor): not read.
    const float* last = xr + 8 * (kLoads - 1);
    pair[kLoads - 1] = _mm256_castps128_ps256(
        kMasked ? _mm_maskload_ps(last, _mm256_castsi256_si128(inside[kLoads - 1])) : _mm_loadu_ps(last));
#pragma GCC unroll 5
    for (int kw = 0; kw < KW; ++kw) {
      const __m256 w = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(wr + kw * 4));
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        const int m = 2 * i + kw / 2;
        const __m256 tap = kw % 2 ? _mm256_permute2f128_ps(pair[m], pair[m + 1], 0x31)
                                  : _mm256_permute2f128_ps(pair[m], pair[m + 1], 0x20);
        acc[i] = _mm256_fmadd_ps(tap, w, acc[i]);
      }
    }
  }
  storeAvx2Step<kNarrow>(r, r.y, ow, acc);
}

// The AVX2 8-output step at stride S (1 or 2).
template <int S, int KW, bool kMasked, bool kNarrow = false>
__attribute__((target("avx2,fma"), always_inline)) inline void stepAvx2(const DepthwiseRow& r, int64_t ow,
                                                                       __m256 bias) {
  if constexpr (S == 1) stepAvx2Stride1<KW, kMasked, kNarrow>(r, ow, bias);
  else stepAvx2Stride2<KW, kMasked, kNarrow>(r, ow, bias);
}

// A whole row at stride S (1 or 2) in those steps: from output 0 in steps of 8, the last
// moved back to end at OW (overlapping the one before), each masked where its outputs leave
// the interior [ow0, ow0 + count) (rowStepMasked). The ends had gone through the
// single-output code: a third of the op's time on 80-wide rows. A masked step at each end
// plus plain steps over the interior had covered a 16-wide row twice (4 steps; now 2): one
// thread, one-conv models alternating in one process (Zen 3), 576 channels 32x32 -> 16x16
// p10 0.575 -> 0.431 ms, 192 channels 64x64 -> 32x32 0.361 -> 0.296, 576 channels 14x14
// at stride 1 0.147 -> 0.118. A row of fewer than 8 outputs (MobileNets' 7x7 planes) is one
// step with masked loads; it had gone through the 4-float path.
template <int S, int KW>
__attribute__((target("avx2,fma"))) void wholeRowAvx2(const DepthwiseRow& r) {
  const __m256 bias = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(r.bias));
  if (r.OW < 8) return stepAvx2<S, KW, true, true>(r, 0, bias);
  for (int64_t ow = 0;; ow += 8) {
    const int64_t start = std::min(ow, r.OW - 8);
    if (rowStepMasked(r, start)) stepAvx2<S, KW, true>(r, start, bias);
    else stepAvx2<S, KW, false>(r, start, bias);
    if (start + 8 >= r.OW) break;
  }
}

// stepAvx2Stride1 for two output rows of a 3x3 window (KH = 3) at a time, as rowPairStep on
// AVX-512: output rows oh and oh + 1 (y0, y1) read input rows rows[0..2] and rows[1..3], each
// row's pixel pairs loaded once for both; 8 accumulators. The taps' weights are broadcast
// where they are used, so the 16 registers hold the accumulators and a row's pairs.
template <bool kMasked, bool kNarrow = false>
__attribute__((target("avx2,fma"), always_inline)) inline void pairStepAvx2(const DepthwiseRow& r,
                                                                            const float* const (&rows)[4], float* y0,
                                                                            float* y1, int64_t ow, __m256 bias) {
  constexpr int kLoads = 5;  // pairs covering pixels 0 .. 9
  __m256i inside[kLoads];
  if constexpr (kMasked) pairsInside(r, ow, inside);
  __m256 a0[4] = {bias, bias, bias, bias}, a1[4] = {bias, bias, bias, bias};
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    const float* xr = rows[j] + ow * 4;
    __m256 even[kLoads];
#pragma GCC unroll 8
    for (int k = 0; k < kLoads; ++k)
      even[k] = kMasked ? _mm256_maskload_ps(xr + 8 * k, inside[k]) : _mm256_loadu_ps(xr + 8 * k);
    const float* w0 = r.wBlock + j * 12;        // window row j of output row oh
    const float* w1 = r.wBlock + (j - 1) * 12;  // window row j - 1 of oh + 1
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
      const __m256 odd = _mm256_permute2f128_ps(even[i], even[i + 1], 0x21);
      const __m256* taps[3] = {&even[i], &odd, &even[i + 1]};
#pragma GCC unroll 3
      for (int kw = 0; kw < 3; ++kw) {
        if (j < 3) a0[i] = _mm256_fmadd_ps(*taps[kw], _mm256_broadcast_ps(reinterpret_cast<const __m128*>(w0 + 4 * kw)), a0[i]);
        if (j > 0) a1[i] = _mm256_fmadd_ps(*taps[kw], _mm256_broadcast_ps(reinterpret_cast<const __m128*>(w1 + 4 * kw)), a1[i]);
      }
    }
  }
  storeAvx2Step<kNarrow>(r, y0, ow, a0);
  storeAvx2Step<kNarrow>(r, y1, ow, a1);
}

// Two rows that way, in wholeRowAvx2's steps.
__attribute__((target("avx2,fma"))) void wholeRowPairAvx2(const DepthwiseRow& r, const float* const (&rows)[4],
                                                          float* y0, float* y1) {
  const __m256 bias = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(r.bias));
  if (r.OW < 8) return pairStepAvx2<true, true>(r, rows, y0, y1, 0, bias);
  for (int64_t ow = 0;; ow += 8) {
    const int64_t start = std::min(ow, r.OW - 8);
    if (rowStepMasked(r, start)) pairStepAvx2<true>(r, rows, y0, y1, start, bias);
    else pairStepAvx2<false>(r, rows, y0, y1, start, bias);
    if (start + 8 >= r.OW) break;
  }
}

// At stride 2 each output row reads two input rows the row before it did not: those of the
// output row kStride2PrefetchRows below are fetched (into L1), each step its span of them,
// while the rows above are computed. The hardware prefetcher left the AVX2 kernel waiting on
// them. Whole rows fetched at the start of each row had gained less (AMD Zen 3, one-conv
// models alternating in one process, one thread, medians: 144 channels 128x128 -> 64x64 1.56
// -> 1.25 ms); spread over the steps, the misses on the rows' first loads (40% of the
// kernel's samples) went: p10 1.29 -> 0.97 ms, 2 threads 0.68 -> 0.55, 96 channels 256x256 ->
// 128x128 4.66 -> 3.63 (one thread); planes of 64x64 and less alike. At stride 1 (one new
// row a step) whole rows had gained nothing.
constexpr int64_t kStride2PrefetchRows = 2;  // output rows ahead (1 to 4 measured alike)

// r.ahead for output row oh at stride 2: its window's last two rows, which no row above reads.
inline void setRowsAhead(const DepthwisePlane& p, DepthwiseRow& r, int64_t oh) {
  for (int q = 0; q < 2; ++q) {
    const int64_t kh = r.KH - 2 + q, ih = oh * p.sh - p.ph + kh * p.dh;
    r.ahead[q] = kh < 0 || ih < 0 || ih >= p.H ? nullptr : p.x + (ih * r.W - r.pw) * 4;
  }
}

// Output rows [oh0, oh1) of one block on AVX2 (KW = 3 or 5 at stride S = 1 or 2 without
// dilation along rows), as wholeRows on AVX-512: `r` holds everything but the rows, the
// interior and y (y at row oh0), so the per-row set-up is done once a band. Row by row, the
// set-up had 20% of a 576-channel 32x32 -> 16x16 conv's samples (2 threads, perf), now 6%;
// one-conv models in interleaved invocations of both builds, 2 threads, p10: 192 channels
// 64x64 -> 32x32 0.181 -> 0.165 ms, 576 channels 14x14 (stride 1) 0.076 -> 0.071. Narrow
// 3x3 rows at stride 1 go two at a time (wholeRowPairAvx2) where both rows' input rows lie
// inside x: there the masked steps are most of a row, and two rows share them (2 threads,
// Zen 5 under TESSERA_CPU_ISA=avx2: 576 channels at 14x14 0.055 -> 0.041 ms, 960 at 7x7
// 0.036 -> 0.029); rows 28 to 80 wide measured 0-6% slower in pairs (each tap's weights
// broadcast again: 16 registers hold the accumulators and a row's pixels).
template <int S, int KW>
__attribute__((target("avx2,fma"))) void wholeRowsAvx2(DepthwiseRow r, const DepthwisePlane& p, int64_t oh0,
                                                       int64_t oh1) {
  const InteriorColumns inside = interiorColumns(r.W, r.OW, KW, 1, S, r.pw);
  r.ow0 = inside.lo;
  r.count = inside.hi - inside.lo;
  const float* rows[kMaxWindowRows];
  r.rows = rows;
  const bool pairs = S == 1 && KW == 3 && r.KH == 3 && p.sh == 1 && p.dh == 1 && r.OW <= 16;
  for (int64_t oh = oh0; oh < oh1; ++oh, r.y += r.OW * 4) {
    const int64_t ih = oh - p.ph;
    if (pairs && oh + 1 < oh1 && ih >= 0 && ih + 4 <= p.H) {
      const float* const pair[4] = {p.x + (ih * r.W - r.pw) * 4, p.x + ((ih + 1) * r.W - r.pw) * 4,
                                    p.x + ((ih + 2) * r.W - r.pw) * 4, p.x + ((ih + 3) * r.W - r.pw) * 4};
      wholeRowPairAvx2(r, pair, r.y, r.y + r.OW * 4);
      ++oh;
      r.y += r.OW * 4;
      continue;
    }
    if (p.sh == 2) setRowsAhead(p, r, oh + kStride2PrefetchRows);
    for (int64_t kh = 0; kh < r.KH; ++kh) {
      const int64_t row = oh * p.sh - p.ph + kh * p.dh;
      rows[kh] = row < 0 || row >= p.H ? nullptr : p.x + (row * r.W - r.pw) * 4;
    }
    wholeRowAvx2<S, KW>(r);
  }
}

// The interior of a row on AVX2 at stride S (1 or 2), any window and dilation: two pixels of a
// block per 256-bit multiply-add (the tap's 4 weights in both halves), four accumulators for 8
// outputs at a time. The 4-float Float4 path it replaces did a multiply and an add per 4
// outputs (rec's 5x5 and det's 3x3 convs on a Zen 3: about a fifth of their models' time).
template <int S>
__attribute__((target("avx2,fma"))) void interiorRowAvx2(const DepthwiseRow& r) {
  const __m256 bias = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(r.bias));
  constexpr int64_t kPair = 2 * S * 4;  // floats from one pixel pair's input to the next's
  for (int64_t ow = firstAvx2Step(r); ow >= 0; ow = nextAvx2Step(r, ow)) {
    __m256 a0 = bias, a1 = bias, a2 = bias, a3 = bias;
    for (int64_t kh = 0; kh < r.KH; ++kh) {
      if (!r.rows[kh]) continue;
      const float* xr = r.rows[kh] + S * ow * 4;
      const float* wr = r.wBlock + kh * r.KW * 4;
      for (int64_t kw = 0; kw < r.KW; ++kw) {
        const __m256 w = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(wr + kw * 4));
        const float* xp = xr + kw * r.dw * 4;
        a0 = _mm256_fmadd_ps(pixelPair<S>(xp), w, a0);
        a1 = _mm256_fmadd_ps(pixelPair<S>(xp + kPair), w, a1);
        a2 = _mm256_fmadd_ps(pixelPair<S>(xp + 2 * kPair), w, a2);
        a3 = _mm256_fmadd_ps(pixelPair<S>(xp + 3 * kPair), w, a3);
      }
    }
    float* y = r.y + ow * 4;
    _mm256_storeu_ps(y, a0);
    _mm256_storeu_ps(y + 8, a1);
    _mm256_storeu_ps(y + 16, a2);
    _mm256_storeu_ps(y + 24, a3);
  }
}
#endif

class CpuDepthwiseConv final : public Execution {
 public:
  CpuDepthwiseConv(Backend* b, const ConvParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>&, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(inputs.size(), Layout::kNCHW);
    (*in)[0] = Layout::kNC4HW4;
    *out = {Layout::kNC4HW4};
    if (convSumInput(inputs)) (*in)[kConvSumInput] = Layout::kNC4HW4;  // added row by row, as y
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    TESSERA_RETURN_IF_ERROR(resolveConv(params_, inputs[0]->shape(), inputs[1]->shape(), &shape_));
    lanes_ = inputs[0]->layout() == Layout::kNC4HW4 ? kChannelPack : 1;
#ifdef TESSERA_DEPTHWISE_X86
    wholeRows_ = nullptr;
    const WindowGeometry& wg = shape_.window;
    const int64_t kw = wg.kernel[1], sw = wg.stride[1];
    if (lanes_ == kChannelPack && (wide_ || avx2_) && wg.dilation[1] == 1 && (kw == 3 || kw == 5) &&
        (sw == 1 || sw == 2) && wg.kernel[0] <= kMaxWideKH) {
      if (wide_)
        wholeRows_ = sw == 1 ? (kw == 3 ? wholeRows<1, 3> : wholeRows<1, 5>)
                             : (kw == 3 ? wholeRows<2, 3> : wholeRows<2, 5>);
      else
        wholeRows_ = sw == 1 ? (kw == 3 ? wholeRowsAvx2<1, 3> : wholeRowsAvx2<1, 5>)
                             : (kw == 3 ? wholeRowsAvx2<2, 3> : wholeRowsAvx2<2, 5>);
    }
#endif
    if (outputs[0]->layout() != inputs[0]->layout())
      return Status::internal("depthwise Conv needs its input and output in the same layout");
    const Tensor* z = convSumInput(inputs);
    if (z && z->layout() != outputs[0]->layout())
      return Status::internal("depthwise Conv needs its input 'Z' in y's layout");
    const int64_t blocks = lanes_ == 1 ? shape_.inChannels : channelBlocks(shape_.inChannels);
    biasOffset_ = blocks * shape_.window.kernelCount() * lanes_;
    const Tensor* w = inputs[1];
    const Tensor* b = inputs.size() > 2 ? inputs[2] : nullptr;
    packed_.plan(cpuPackedConstants(*this), {w, b}, "depthwise lanes" + std::to_string(lanes_),
                 biasOffset_ + blocks * lanes_, [this, w, b](float* dst) { pack(w, b, dst); });
    return Status::ok();
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    return convWork(inputs, outputs);
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    weights_ = packed_.get();
    bias_ = weights_ + biasOffset_;
    const WindowGeometry& g = shape_.window;
    const int64_t blocks = lanes_ == 1 ? shape_.inChannels : channelBlocks(shape_.inChannels);
    const int64_t OH = g.output[0];
    const float* x = inputs[0]->data<float>();
    float* y = outputs[0]->data<float>();
    const Tensor* zTensor = convSumInput(inputs);
    const float* z = zTensor ? zTensor->data<float>() : nullptr;
    const RegisterClamp clamp = RegisterClamp::of(params_.activation, z != nullptr);
    // A task is one band of rows (SpatialBands.hpp) of one or more channel blocks, the tasks
    // of a band next to each other, so each thread's share is its band of every channel. A
    // task has at least kOutputsPerTask outputs: each claim is a locked add, which waits for
    // the stores before it to drain (7-wide rows 4 a claim: a sixth of the op's time in claims).
    const SpatialBands split = spatialBands(OH, g.output[1], lanes_ * sizeof(float), cpuPool(*this).threads());
    const int64_t bands = split.count;
    const int64_t bandOutputs = std::max<int64_t>(1, OH / bands * g.output[1]);
    const int64_t blocksPerTask = std::min(blocks, (kOutputsPerTask + bandOutputs - 1) / bandOutputs);
    const int64_t groups = (blocks + blocksPerTask - 1) / blocksPerTask;
    runClaimedRanges(cpuPool(*this), shape_.batch * bands * groups, 1, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t group = t % groups, band = t / groups % bands, n = t / (groups * bands);
        for (int64_t block = group * blocksPerTask; block < std::min(blocks, (group + 1) * blocksPerTask); ++block) {
          const int64_t plane = n * blocks + block;
          const float* xp = x + plane * g.input[0] * g.input[1] * lanes_;
          const int64_t oh0 = split.row(band), oh1 = split.row(band + 1);
#ifdef TESSERA_DEPTHWISE_X86
          if (wholeRows_) {  // the band's rows in one call, then Z and the activation over them
            float* yp = y + (plane * OH + oh0) * g.output[1] * kChannelPack;
            const DepthwiseRow r{nullptr, weights_ + block * g.kernel[0] * g.kernel[1] * kChannelPack,
                                 bias_ + block * kChannelPack, g.kernel[0], g.kernel[1], 1, yp, g.input[1],
                                 g.output[1], g.padBegin[1], 0, 0, clamp};
            wholeRows_(r, {xp, g.input[0], g.stride[0], g.padBegin[0], g.dilation[0]}, oh0, oh1);
            const int64_t count = (oh1 - oh0) * g.output[1] * kChannelPack;
            if (z) addSumRange(yp, z + (yp - y), count);
            if (!clamp.any()) applyFusedActivation(params_.activation, yp, count);
            continue;
          }
#endif
          for (int64_t oh = oh0; oh < oh1; ++oh) {
            float* yp = y + (plane * OH + oh) * g.output[1] * lanes_;
            if (lanes_ == kChannelPack) row<kChannelPack>(xp, yp, block, oh);
            else row<1>(xp, yp, block, oh);
            const int64_t count = g.output[1] * lanes_;
            if (z) addSumRange(yp, z + (yp - y), count);
            applyFusedActivation(params_.activation, yp, count);  // still in cache
          }
        }
      }
    });
    // Padding lanes: zero weights and bias give 0 unless the input lanes hold inf/nan (or an
    // activation changed them).
    if (lanes_ == kChannelPack) zeroPaddingLanes(y, ChannelAddressing(outputs[0]->shape(), Layout::kNC4HW4));
    return Status::ok();
  }

 private:
  // Weights [blocks][KH*KW][lanes] and bias [blocks][lanes], zero in padding lanes.
  void pack(const Tensor* weights, const Tensor* biasTensor, float* packed) const {
    const int64_t taps = shape_.window.kernelCount();
    const float* w = weights->data<float>();
    const float* b = biasTensor ? biasTensor->data<float>() : nullptr;
    for (int64_t c = 0; c < shape_.inChannels; ++c) {
      const int64_t block = c / lanes_, lane = c % lanes_;
      for (int64_t t = 0; t < taps; ++t) packed[(block * taps + t) * lanes_ + lane] = w[c * taps + t];
      packed[biasOffset_ + block * lanes_ + lane] = b ? b[c] : 0.f;
    }
  }

  // One output row of one channel block (its activation is applied after).
  template <int L>
  void row(const float* x, float* y, int64_t block, int64_t oh) const {
    const WindowGeometry& g = shape_.window;
    const int64_t H = g.input[0], W = g.input[1], OW = g.output[1];
    const int64_t KH = g.kernel[0], KW = g.kernel[1];
    const int64_t sw = g.stride[1], dw = g.dilation[1], pw = g.padBegin[1];
    const float* wBlock = weights_ + block * KH * KW * L;
    const float* bias = bias_ + block * L;
    const InteriorColumns inside = interiorColumns(W, OW, KW, dw, sw, pw);
    const int64_t owLo = inside.lo, owHi = inside.hi;
    if (L == kChannelPack) return packedRow(x, y, wBlock, bias, oh, owLo, owHi);
    for (int64_t ow = 0; ow < OW; ++ow) {
      float acc[L];
      for (int l = 0; l < L; ++l) acc[l] = bias[l];
      const bool interior = ow >= owLo && ow < owHi;
      const int64_t iw0 = ow * sw - pw;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = oh * g.stride[0] - g.padBegin[0] + kh * g.dilation[0];
        if (ih < 0 || ih >= H) continue;
        const float* xr = x + ih * W * L;
        const float* wr = wBlock + kh * KW * L;
        if (interior) {
          for (int64_t kw = 0; kw < KW; ++kw) {
            const float* xv = xr + (iw0 + kw * dw) * L;
            for (int l = 0; l < L; ++l) acc[l] += xv[l] * wr[kw * L + l];
          }
        } else {
          for (int64_t kw = 0; kw < KW; ++kw) {
            const int64_t iw = iw0 + kw * dw;
            if (iw < 0 || iw >= W) continue;
            const float* xv = xr + iw * L;
            for (int l = 0; l < L; ++l) acc[l] += xv[l] * wr[kw * L + l];
          }
        }
      }
      for (int l = 0; l < L; ++l) y[ow * L + l] = acc[l];
    }
  }

  // The NC4HW4 row: four channels per vector operation.
  void packedRow(const float* x, float* y, const float* wBlock, const float* bias, int64_t oh, int64_t owLo,
                 int64_t owHi) const {
    constexpr int L = kChannelPack;
    const WindowGeometry& g = shape_.window;
    const int64_t H = g.input[0], W = g.input[1], OW = g.output[1];
    const int64_t KH = g.kernel[0], KW = g.kernel[1];
    const int64_t sw = g.stride[1], dw = g.dilation[1], pw = g.padBegin[1];
    const Float4 b = loadFloat4(bias);
    int64_t vectorEnd = owLo;  // [owLo, vectorEnd) done by the wide kernel
#ifdef TESSERA_DEPTHWISE_X86
    // KW 3 or 5 at stride 1 or 2 without dilation along rows went to wholeRows_ instead. The
    // others: on AVX-512 the interior at stride 1 four outputs a vector; on AVX2 the interior
    // at stride 1 or 2 eight outputs at a time (the last step overlapping).
    const bool interior512 = wide_ && sw == 1 && owHi - owLo >= 4 && KH <= kMaxWideKH;
    const bool interior256 = avx2_ && (sw == 1 || sw == 2) && owHi - owLo >= 8 && KH <= kMaxWideKH;
    if (interior512 || interior256) {
      const float* rows[kMaxWideKH];
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = oh * g.stride[0] - g.padBegin[0] + kh * g.dilation[0];
        rows[kh] = ih < 0 || ih >= H ? nullptr : x + (ih * W - pw) * L;
      }
      const int64_t count = interior256 ? owHi - owLo : (owHi - owLo) / 4 * 4;
      const DepthwiseRow r{rows, wBlock, bias, KH, KW, dw, y, W, OW, pw, owLo, count, RegisterClamp()};
      if (interior256) sw == 1 ? interiorRowAvx2<1>(r) : interiorRowAvx2<2>(r);
      else interiorRowAvx512(r);
      vectorEnd = owLo + count;
    }
#endif
    for (int64_t ow = 0; ow < OW; ++ow) {
      if (ow == owLo && vectorEnd > owLo) {
        ow = vectorEnd - 1;
        continue;
      }
      if (ow >= owLo && ow + 4 <= owHi) {
        // Four interior outputs at once: independent accumulators hide the add latency.
        Float4 a0 = b, a1 = b, a2 = b, a3 = b;
        const int64_t step = sw * L;
        for (int64_t kh = 0; kh < KH; ++kh) {
          const int64_t ih = oh * g.stride[0] - g.padBegin[0] + kh * g.dilation[0];
          if (ih < 0 || ih >= H) continue;
          const float* xr = x + (ih * W + ow * sw - pw) * L;
          const float* wr = wBlock + kh * KW * L;
          for (int64_t kw = 0; kw < KW; ++kw) {
            const Float4 wv = loadFloat4(wr + kw * L);
            const float* xp = xr + kw * dw * L;
            a0 += loadFloat4(xp) * wv;
            a1 += loadFloat4(xp + step) * wv;
            a2 += loadFloat4(xp + 2 * step) * wv;
            a3 += loadFloat4(xp + 3 * step) * wv;
          }
        }
        storeFloat4(y + ow * L, a0);
        storeFloat4(y + (ow + 1) * L, a1);
        storeFloat4(y + (ow + 2) * L, a2);
        storeFloat4(y + (ow + 3) * L, a3);
        ow += 3;
        continue;
      }
      Float4 acc = b;
      const bool interior = ow >= owLo && ow < owHi;
      const int64_t iw0 = ow * sw - pw;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = oh * g.stride[0] - g.padBegin[0] + kh * g.dilation[0];
        if (ih < 0 || ih >= H) continue;
        const float* xr = x + ih * W * L;
        const float* wr = wBlock + kh * KW * L;
        for (int64_t kw = 0; kw < KW; ++kw) {
          const int64_t iw = iw0 + kw * dw;
          if (!interior && (iw < 0 || iw >= W)) continue;
          acc += loadFloat4(xr + iw * L) * loadFloat4(wr + kw * L);
        }
      }
      storeFloat4(y + ow * L, acc);
    }
  }

  static constexpr int64_t kMaxWideKH = kMaxWindowRows;
  static constexpr int64_t kOutputsPerTask = 256;  // pixels (of 4 channels) per task, at least
  const bool wide_ = cpuIsa() == CpuIsa::kAvx512;  // the 512-bit interior kernel
  const bool avx2_ = cpuIsa() == CpuIsa::kAvx2;    // the 256-bit one
#ifdef TESSERA_DEPTHWISE_X86
  WholeRowsFn wholeRows_ = nullptr;  // rows of KW 3 or 5 at stride 1 or 2 (AVX-512, AVX2): whole bands a call
#endif
  ConvParams params_;
  ConvShape shape_;
  int lanes_ = kChannelPack;
  // Weights [blocks][KH*KW][lanes] then bias [blocks][lanes] from biasOffset_: shared by the
  // Session's plans when constant.
  PackedWeights packed_;
  int64_t biasOffset_ = 0;
  const float* weights_ = nullptr;  // of this run
  const float* bias_ = nullptr;
};

}  // namespace

std::unique_ptr<Execution> makeCpuDepthwiseConv(Backend* backend, const ConvParams& params) {
  return std::make_unique<CpuDepthwiseConv>(backend, params);
}

}  // namespace tessera
