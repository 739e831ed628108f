// variants: RNN, GRU, LSTM ; precision: fp32 fp16
// The recurrence of RNN / GRU / LSTM (ops/Recurrent.hpp), after recurrent_project.comp has
// put x W^T + biases of every step in `xw`. One work-group per (direction, batch entry) walks
// that entry's steps inside the kernel: step t needs all of h_{t-1}, so the steps cannot be
// spread over invocations, and one dispatch per step would cost a submit-sized overhead
// each. The 64 invocations own the hidden units j = lid, lid + 64, ...; per step each computes
// its units' gate rows R[g*H + j] . h_{t-1} (G*H dot products of length H in all) reading
// h_{t-1} from shared memory, which is double-buffered (read hs[cur], write hs[1 - cur]): one
// barrier per step (GRU without linear_before_reset: two, r (.) h_{t-1} is shared as well).
// sequence_lens: run-time values are clamped to [0, seq] (the CPU reports them as errors;
// constant ones are checked by the creator). A dispatch walks steps [P[20], P[21]); where the
// driver limits an invocation's loop iterations (lavapipe), the steps are split over several
// dispatches that carry h (and c) in `carried` from one to the next.
// P: 0 seq, 1 batch, 2 H, 3 D, 4 flags (below), 5 clip, 6 activation kinds (4 bits each,
//    function d * functionsPerDirection + k), 7..12 their alphas, 13..18 their betas,
//    19 functions per direction, 20 this dispatch's first step, 21 its end (exclusive)
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
F32_IN(0, xw);       // [seq*batch rows in X's order, D, G*H]
TENSOR_IN(1, R);     // [D, G*H, H]
TENSOR_IN(2, bias);  // [D, 2*G*H] (GRU linear_before_reset reads R's h-gate bias here)
layout(std430, set = 0, binding = 3) readonly buffer Buf3 { int lens[]; };  // int32 or int64
TENSOR_IN(4, h0);    // initial_h, like Y_h
TENSOR_IN(5, c0);    // initial_c
TENSOR_IN(6, peep);  // P [D, 3*H]: i o f
TENSOR_OUT(7, Y);    // [seq, D, batch, H] (layout 1: [batch, seq, D, H])
TENSOR_OUT(8, Yh);   // [D, batch, H] (layout 1: [batch, D, H])
TENSOR_OUT(9, Yc);
layout(std430, set = 0, binding = 10) buffer Buf10 { float carried[]; };  // [D*batch, 2*H]: h, c

const uint BATCH_MAJOR = 1u, HAS_BIAS = 2u, HAS_LENS = 4u, LENS_I64 = 8u, HAS_H0 = 16u, HAS_C0 = 32u,
           HAS_P = 64u, WANT_Y = 128u, WANT_YH = 256u, WANT_YC = 512u, LINEAR_BEFORE_RESET = 1024u,
           INPUT_FORGET = 2048u, HAS_CLIP = 4096u, REVERSED_0 = 8192u, REVERSED_1 = 16384u;
#define MAX_H 1024  // the creator's kMaxHidden

shared float hs[2 * MAX_H];  // h_{t-1} and h_t
#if defined(GRU) || defined(LSTM)
shared float own[MAX_H];  // LSTM: c; GRU: z of this step (each unit's own invocation only)
#endif
#ifdef GRU
shared float rh[MAX_H];  // r (.) h_{t-1} (without linear_before_reset)
#endif

// Activation function f (RecurrentActivation::Kind's codes, alpha and beta from P).
float act(int f, float v) {
  float a = pfloat(7 + f), b = pfloat(13 + f);
  switch (int((P[6] >> uint(4 * f)) & 15u)) {
    case 0: return max(v, 0.0);
    case 1: return tanhSafe(v);
    case 2: return v >= 0.0 ? 1.0 / (1.0 + exp(-v)) : exp(v) / (1.0 + exp(v));
    case 3: return a * v + b;
    case 4: return v >= 0.0 ? v : a * v;
    case 5: return v > a ? v : 0.0;
    case 6: return a * tanhSafe(b * v);
    case 7: return min(1.0, max(0.0, a * v + b));
    case 8: return v >= 0.0 ? v : a * (exp(v) - 1.0);
    case 9: return v / (1.0 + abs(v));
    default: return v > 0.0 ? v + log(1.0 + exp(-v)) : log(1.0 + exp(v));  // 10: Softplus
  }
}

float clipped(float v) { return (P[4] & HAS_CLIP) != 0u ? clamp(v, -pfloat(5), pfloat(5)) : v; }

// R[row] . v, v in shared memory at `base` (hs) or rh.
float dotHidden(int rRow, int H, int base) {
  float acc = 0.0;
  for (int k = 0; k < H; ++k) acc += LD(R[rRow + k]) * hs[base + k];
  return acc;
}
#ifdef GRU
float dotReset(int rRow, int H) {
  float acc = 0.0;
  for (int k = 0; k < H; ++k) acc += LD(R[rRow + k]) * rh[k];
  return acc;
}
#endif

void main() {
  int seq = pint(0), batch = pint(1), H = pint(2), D = pint(3), fpd = pint(19);
  uint flags = P[4];
  int group = int(gid() / 64u), lid = int(gl_LocalInvocationID.x);
  if (group >= D * batch) return;  // whole work-groups: uniform
  int d = group / batch, b = group % batch;
#if defined(RNN)
  const int G = 1;
#elif defined(GRU)
  const int G = 3;
#else
  const int G = 4;
#endif
  int GH = G * H;
  bool batchMajor = (flags & BATCH_MAJOR) != 0u;
  bool reversed = (flags & (d == 0 ? REVERSED_0 : REVERSED_1)) != 0u;
  int len = seq;
  if ((flags & HAS_LENS) != 0u) len = clamp(lens[(flags & LENS_I64) != 0u ? 2 * b : b], 0, seq);
  int state = (batchMajor ? b * D + d : d * batch + b) * H;
  int f0 = d * fpd;  // this direction's first activation
  int first = pint(20), end = pint(21), carry = group * 2 * H;

  for (int j = lid; j < H; j += 64) {
    if (first > 0) {
      hs[j] = carried[carry + j];
#ifdef LSTM
      own[j] = carried[carry + H + j];
#endif
      continue;
    }
    hs[j] = (flags & HAS_H0) != 0u ? LD(h0[state + j]) : 0.0;
#ifdef LSTM
    own[j] = (flags & HAS_C0) != 0u ? LD(c0[state + j]) : 0.0;
#endif
  }
  barrier();

  int cur = 0;  // hs[cur * MAX_H ...] holds h_{t-1}
  for (int s = first; s < min(len, end); ++s) {
    int t = reversed ? len - 1 - s : s;
    int xo = ((batchMajor ? b * seq + t : t * batch + b) * D + d) * GH;  // this step's xw
    int ro = d * GH * H;                                                  // this direction's R
    int prev = cur * MAX_H, next = (1 - cur) * MAX_H;
    int yo = (batchMajor ? (b * seq + t) * D + d : (t * D + d) * batch + b) * H;
#if defined(RNN)
    for (int j = lid; j < H; j += 64)
      hs[next + j] = act(f0, clipped(xw[xo + j] + dotHidden(ro + j * H, H, prev)));
#elif defined(GRU)
    bool lbr = (flags & LINEAR_BEFORE_RESET) != 0u;
    for (int j = lid; j < H; j += 64) {
      float z = act(f0, clipped(xw[xo + j] + dotHidden(ro + j * H, H, prev)));
      float r = act(f0, clipped(xw[xo + H + j] + dotHidden(ro + (H + j) * H, H, prev)));
      own[j] = z;
      if (lbr) {
        float rbh = (flags & HAS_BIAS) != 0u ? LD(bias[d * 2 * GH + GH + 2 * H + j]) : 0.0;
        float hc = act(f0 + 1, clipped(xw[xo + 2 * H + j] + r * (dotHidden(ro + (2 * H + j) * H, H, prev) + rbh)));
        hs[next + j] = (1.0 - z) * hc + z * hs[prev + j];
      } else {
        rh[j] = r * hs[prev + j];
      }
    }
    if (!lbr) {  // the h gate multiplies r (.) h_{t-1} by R: all of it first
      barrier();
      for (int j = lid; j < H; j += 64) {
        float hc = act(f0 + 1, clipped(xw[xo + 2 * H + j] + dotReset(ro + (2 * H + j) * H, H)));
        hs[next + j] = (1.0 - own[j]) * hc + own[j] * hs[prev + j];
      }
    }
#else
    bool peephole = (flags & HAS_P) != 0u;
    int po = d * 3 * H;
    for (int j = lid; j < H; j += 64) {
      float c = own[j];
      float gi = xw[xo + j] + dotHidden(ro + j * H, H, prev);
      float go = xw[xo + H + j] + dotHidden(ro + (H + j) * H, H, prev);
      float gf = xw[xo + 2 * H + j] + dotHidden(ro + (2 * H + j) * H, H, prev);
      float gc = xw[xo + 3 * H + j] + dotHidden(ro + (3 * H + j) * H, H, prev);
      if (peephole) {
        gi += LD(peep[po + j]) * c;
        gf += LD(peep[po + 2 * H + j]) * c;
      }
      float i = act(f0, clipped(gi));
      float f = (flags & INPUT_FORGET) != 0u ? 1.0 - i : act(f0, clipped(gf));
      c = f * c + i * act(f0 + 1, clipped(gc));
      if (peephole) go += LD(peep[po + H + j]) * c;
      own[j] = c;
      hs[next + j] = act(f0, clipped(go)) * act(f0 + 2, c);
    }
#endif
    if ((flags & WANT_Y) != 0u)
      for (int j = lid; j < H; j += 64) Y[yo + j] = ST(hs[next + j]);
    barrier();
    cur = 1 - cur;
  }

  // Past the entry's length Y is 0 (this dispatch's steps of it).
  if ((flags & WANT_Y) != 0u)
    for (int s = max(len, first); s < min(seq, end); ++s) {
      int yo = (batchMajor ? (b * seq + s) * D + d : (s * D + d) * batch + b) * H;
      for (int j = lid; j < H; j += 64) Y[yo + j] = ST(0.0);
    }
  if (end < seq) {  // more steps follow in another dispatch: carry the state
    for (int j = lid; j < H; j += 64) {
      carried[carry + j] = hs[cur * MAX_H + j];
#ifdef LSTM
      carried[carry + H + j] = own[j];
#endif
    }
    return;
  }
  // Y_h / Y_c hold the last state (0 for an empty sequence).
  for (int j = lid; j < H; j += 64) {
    if ((flags & WANT_YH) != 0u) Yh[state + j] = ST(len > 0 ? hs[cur * MAX_H + j] : 0.0);
#ifdef LSTM
    if ((flags & WANT_YC) != 0u) Yc[state + j] = ST(len > 0 ? own[j] : 0.0);
#endif
  }
}
