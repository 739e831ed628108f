// RNN, GRU and LSTM (ops/Recurrent.hpp) on plain f32 buffers, in two kernels.
//
// recurrent_project: xw[row, col] = X[row] . W[col] + Wb[col] (+ Rb[col] below rbFrom), row
// over X's seq*batch rows (in X's order), col over D*G*H; every step at once, all
// independent. global: (rows * cols)
//
// recurrent_rnn / _gru / _lstm: one work-group of WG_SIZE items per (direction, batch entry)
// walks that entry's steps inside the kernel: step t needs all of h_{t-1}, so steps cannot be
// spread over items, and one enqueue per step would cost a launch each. Item l owns the
// hidden units j = l, l + WG_SIZE, ...; per step it computes its units' gate rows
// R[g*H + j] . h_{t-1} reading h_{t-1} from local memory, which is double-buffered (read
// hs[cur], write hs[1 - cur]): one barrier per step (GRU without linear_before_reset: two,
// r (.) h_{t-1} is shared as well). Run-time sequence_lens are clamped to [0, seq] (the CPU
// reports them as errors; constant ones are checked by the creator).
// global: (D * batch * WG_SIZE)

#define MAX_H 1024  // the creator's kMaxHidden (the local arrays)
#define BATCH_MAJOR 1u
#define HAS_BIAS 2u
#define HAS_LENS 4u
#define LENS_I64 8u
#define HAS_H0 16u
#define HAS_C0 32u
#define HAS_P 64u
#define WANT_Y 128u
#define WANT_YH 256u
#define WANT_YC 512u
#define LINEAR_BEFORE_RESET 1024u
#define INPUT_FORGET 2048u
#define HAS_CLIP 4096u
#define REVERSED_0 8192u
#define REVERSED_1 16384u
#define KIND_RNN 0
#define KIND_GRU 1
#define KIND_LSTM 2

__kernel void recurrent_project(__global const float* x, __global const float* w, __global const float* bias,
                                __global float* xw, int count, int input, int cols, int gh, int hasBias,
                                int rbFrom) {
  const int i = get_global_id(0);
  if (i >= count) return;
  const int row = i / cols, col = i % cols;
  __global const float* xr = x + (size_t)row * input;
  __global const float* wr = w + (size_t)col * input;
  float acc = 0.f;
  for (int k = 0; k < input; ++k) acc += xr[k] * wr[k];
  if (hasBias) {
    const int g = col % gh, bo = (col / gh) * 2 * gh + g;
    acc += bias[bo];
    if (g < rbFrom) acc += bias[bo + gh];
  }
  xw[i] = acc;
}

// The parameters every step kernel takes.
#define STEP_ARGS                                                                                                  \
  __global const float *xw, __global const float *R, __global const float *bias, __global const int *lens,         \
      __global const float *h0, __global const float *c0, __global const float *peep, __global float *Y,          \
      __global float *Yh, __global float *Yc, int seq, int batch, int H, int D, uint flags, float clip, uint kinds, \
      float8 alphas, float8 betas, int fpd
#define STEP_PASS xw, R, bias, lens, h0, c0, peep, Y, Yh, Yc, seq, batch, H, D, flags, clip, kinds, alphas, betas, fpd

inline float pick8(float8 v, int i) {
  const float a[8] = {v.s0, v.s1, v.s2, v.s3, v.s4, v.s5, v.s6, v.s7};
  return a[i];
}

// Activation function f (RecurrentActivation::Kind's codes in `kinds`, 4 bits each).
inline float act(int f, float v, uint kinds, float8 alphas, float8 betas) {
  const float a = pick8(alphas, f), b = pick8(betas, f);
  switch ((kinds >> (4 * f)) & 15u) {
    case 0: return fmax(v, 0.f);
    case 1: return tanh(v);
    case 2: return v >= 0.f ? 1.f / (1.f + exp(-v)) : exp(v) / (1.f + exp(v));
    case 3: return a * v + b;
    case 4: return v >= 0.f ? v : a * v;
    case 5: return v > a ? v : 0.f;
    case 6: return a * tanh(b * v);
    case 7: return fmin(1.f, fmax(0.f, a * v + b));
    case 8: return v >= 0.f ? v : a * expm1(v);
    case 9: return v / (1.f + fabs(v));
    default: return v > 0.f ? v + log1p(exp(-v)) : log1p(exp(v));  // 10: Softplus
  }
}
#define ACT(f, v) act(f, v, kinds, alphas, betas)
#define CLIPPED(v) ((flags & HAS_CLIP) ? clamp(v, -clip, clip) : (v))

inline float dot_local(__global const float* r, __local const float* v, int n) {
  float acc = 0.f;
  for (int k = 0; k < n; ++k) acc += r[k] * v[k];
  return acc;
}

// The recurrence of one (direction, batch entry); `kind` is a constant at each call, so each
// kernel gets its own specialised copy.
inline void recur(const int kind, STEP_ARGS, __local float* hs, __local float* own, __local float* rh) {
  const int group = get_group_id(0), l = get_local_id(0);
  const int d = group / batch, b = group % batch;
  const int G = kind == KIND_RNN ? 1 : kind == KIND_GRU ? 3 : 4, GH = G * H;
  const bool batchMajor = (flags & BATCH_MAJOR) != 0;
  const bool reversed = (flags & (d == 0 ? REVERSED_0 : REVERSED_1)) != 0;
  int len = seq;
  if (flags & HAS_LENS) len = clamp(lens[(flags & LENS_I64) ? 2 * b : b], 0, seq);
  const int state = (batchMajor ? b * D + d : d * batch + b) * H;
  const int f0 = d * fpd;  // this direction's first activation
  __global const float* Rd = R + (size_t)d * GH * H;

  for (int j = l; j < H; j += WG_SIZE) {
    hs[j] = (flags & HAS_H0) ? h0[state + j] : 0.f;
    if (kind == KIND_LSTM) own[j] = (flags & HAS_C0) ? c0[state + j] : 0.f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  int cur = 0;  // hs + cur * MAX_H holds h_{t-1}
  for (int s = 0; s < len; ++s) {
    const int t = reversed ? len - 1 - s : s;
    __global const float* x = xw + (size_t)((batchMajor ? b * seq + t : t * batch + b) * D + d) * GH;
    __local float* prev = hs + cur * MAX_H;
    __local float* next = hs + (1 - cur) * MAX_H;
    if (kind == KIND_RNN) {
      for (int j = l; j < H; j += WG_SIZE) next[j] = ACT(f0, CLIPPED(x[j] + dot_local(Rd + j * H, prev, H)));
    } else if (kind == KIND_GRU) {
      const bool lbr = (flags & LINEAR_BEFORE_RESET) != 0;
      for (int j = l; j < H; j += WG_SIZE) {
        const float z = ACT(f0, CLIPPED(x[j] + dot_local(Rd + j * H, prev, H)));
        const float r = ACT(f0, CLIPPED(x[H + j] + dot_local(Rd + (H + j) * H, prev, H)));
        own[j] = z;
        if (lbr) {
          const float rbh = (flags & HAS_BIAS) ? bias[d * 2 * GH + GH + 2 * H + j] : 0.f;
          const float hc = ACT(f0 + 1, CLIPPED(x[2 * H + j] + r * (dot_local(Rd + (2 * H + j) * H, prev, H) + rbh)));
          next[j] = (1.f - z) * hc + z * prev[j];
        } else {
          rh[j] = r * prev[j];
        }
      }
      // Without linear_before_reset the h gate multiplies r (.) h_{t-1} by R: all of it
      // first. (Unconditional: under the uniform `if (!lbr)` PoCL 3.1 gave wrong results
      // for H < WG_SIZE.)
      barrier(CLK_LOCAL_MEM_FENCE);
      if (!lbr) {
        for (int j = l; j < H; j += WG_SIZE) {
          const float hc = ACT(f0 + 1, CLIPPED(x[2 * H + j] + dot_local(Rd + (2 * H + j) * H, rh, H)));
          next[j] = (1.f - own[j]) * hc + own[j] * prev[j];
        }
      }
    } else {
      const bool peephole = (flags & HAS_P) != 0;
      __global const float* P = peep + d * 3 * H;
      for (int j = l; j < H; j += WG_SIZE) {
        float c = own[j];
        float gi = x[j] + dot_local(Rd + j * H, prev, H);
        float go = x[H + j] + dot_local(Rd + (H + j) * H, prev, H);
        float gf = x[2 * H + j] + dot_local(Rd + (2 * H + j) * H, prev, H);
        const float gc = x[3 * H + j] + dot_local(Rd + (3 * H + j) * H, prev, H);
        if (peephole) {
          gi += P[j] * c;
          gf += P[2 * H + j] * c;
        }
        const float i = ACT(f0, CLIPPED(gi));
        const float f = (flags & INPUT_FORGET) ? 1.f - i : ACT(f0, CLIPPED(gf));
        c = f * c + i * ACT(f0 + 1, CLIPPED(gc));
        if (peephole) go += P[H + j] * c;
        own[j] = c;
        next[j] = ACT(f0, CLIPPED(go)) * ACT(f0 + 2, c);
      }
    }
    if (flags & WANT_Y) {
      __global float* y = Y + (size_t)(batchMajor ? (b * seq + t) * D + d : (t * D + d) * batch + b) * H;
      for (int j = l; j < H; j += WG_SIZE) y[j] = next[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    cur = 1 - cur;
  }

  // Past the entry's length Y is 0; Y_h / Y_c hold the last state (0 for an empty sequence).
  if (flags & WANT_Y)
    for (int s = len; s < seq; ++s) {
      __global float* y = Y + (size_t)(batchMajor ? (b * seq + s) * D + d : (s * D + d) * batch + b) * H;
      for (int j = l; j < H; j += WG_SIZE) y[j] = 0.f;
    }
  for (int j = l; j < H; j += WG_SIZE) {
    if (flags & WANT_YH) Yh[state + j] = len > 0 ? hs[cur * MAX_H + j] : 0.f;
    if (kind == KIND_LSTM && (flags & WANT_YC)) Yc[state + j] = len > 0 ? own[j] : 0.f;
  }
}

__attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) __kernel void recurrent_rnn(STEP_ARGS) {
  __local float hs[2 * MAX_H];
  recur(KIND_RNN, STEP_PASS, hs, hs, hs);  // (no own / rh state)
}

__attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) __kernel void recurrent_gru(STEP_ARGS) {
  __local float hs[2 * MAX_H], own[MAX_H], rh[MAX_H];
  recur(KIND_GRU, STEP_PASS, hs, own, rh);
}

__attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) __kernel void recurrent_lstm(STEP_ARGS) {
  __local float hs[2 * MAX_H], own[MAX_H];
  recur(KIND_LSTM, STEP_PASS, hs, own, hs);  // (no rh)
}
