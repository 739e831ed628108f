// MatMul (batched, broadcast batch dims) and Gemm on plain f32 buffers. One work-item per
// output element; the K loop accumulates in fp32. MatMul's optional bias (ops/MatMul.hpp) is
// read with -DHAS_BIAS (bias is bound to b otherwise), its residual Z (the output's shape) with
// -DHAS_Z (likewise), its fused activation applied after them (-DACTIVATION, common.h); -DTRANS_B reads B stored N x K (MatMul's transB), -DALPHA scales
// the product before the bias.
#include "common.h"

// B's column n starts at B_COLUMN(n) of its matrix, its element k at B_INDEX(k) from there.
#ifdef TRANS_B
#define B_COLUMN(n) ((size_t)(n) * K)
#define B_INDEX(k) (k)
#else
#define B_COLUMN(n) (n)
#define B_INDEX(k) ((size_t)(k) * N)
#endif

// global: (N, M, batch). aOffsets/bOffsets: per batch index, the element offset of that
// batch's A and B matrices (precomputed for broadcasting).
__kernel void matmul(__global const float* a, __global const float* b, __global float* y,
                     __global const int* aOffsets, __global const int* bOffsets, int M, int N,
                     int K, int batch, __global const float* bias, __global const float* z) {
  const int n = get_global_id(0), m = get_global_id(1), bi = get_global_id(2);
  if (n >= N || m >= M || bi >= batch) return;
  __global const float* ap = a + aOffsets[bi] + (size_t)m * K;
  __global const float* bp = b + bOffsets[bi] + B_COLUMN(n);
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc = mad(ap[k], bp[B_INDEX(k)], acc);
#ifdef ALPHA
  acc *= ALPHA;
#endif
#ifdef HAS_BIAS
  acc += bias[n];
#endif
  const size_t at = ((size_t)bi * M + m) * N + n;
#ifdef HAS_Z
  acc += z[at];
#endif
  y[at] = activate4((float4)(acc)).x;
}

// matmul for few outputs and a long K (core/src/SplitReduction.hpp): `lanes` work-items of
// one work-group share an output element, each summing every lanes-th k; a tree in local
// memory merges their sums. global: ceil(outputs * lanes / 64) * 64, 1-D; local: 64.
__kernel void matmul_split(__global const float* a, __global const float* b, __global float* y,
                           __global const int* aOffsets, __global const int* bOffsets, int M, int N,
                           int K, int batch, __global const float* bias, __global const float* z,
                           int lanes) {
  __local float sums[64];
  const int me = get_local_id(0), i = get_global_id(0);
  const int out = i / lanes, lane = i - out * lanes;
  const bool valid = out < M * N * batch;  // no early return: every work-item meets the barriers
  float acc = 0.f;
  if (valid) {
    const int n = out % N, m = (out / N) % M, bi = out / N / M;
    __global const float* ap = a + aOffsets[bi] + (size_t)m * K;
    __global const float* bp = b + bOffsets[bi] + B_COLUMN(n);
    for (int k = lane; k < K; k += lanes) acc = mad(ap[k], bp[B_INDEX(k)], acc);
  }
  sums[me] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = lanes / 2; s > 0; s >>= 1) {
    if (lane < s) sums[me] += sums[me + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (!valid || lane != 0) return;
  float total = sums[me];
#ifdef ALPHA
  total *= ALPHA;
#endif
#ifdef HAS_BIAS
  total += bias[out % N];
#endif
#ifdef HAS_Z
  total += z[out];
#endif
  y[out] = activate4((float4)(total)).x;
}

// Y = alpha * A' B' + beta * C. A' is M x K (A stored K x M when TRANS_A), B' is K x N
// (B stored N x K when TRANS_B); C broadcasts with strides (cm, cn) (0 where broadcast).
// global: (N, M)
__kernel void gemm(__global const float* a, __global const float* b, __global const float* c,
                   __global float* y, int M, int N, int K, float alpha, float beta, int cm, int cn,
                   int hasC) {
  const int n = get_global_id(0), m = get_global_id(1);
  if (n >= N || m >= M) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) {
#ifdef TRANS_A
    const float av = a[(size_t)k * M + m];
#else
    const float av = a[(size_t)m * K + k];
#endif
#ifdef TRANS_B
    const float bv = b[(size_t)n * K + k];
#else
    const float bv = b[(size_t)k * N + n];
#endif
    acc = mad(av, bv, acc);
  }
  float r = alpha * acc;
  if (hasC) r += beta * c[m * cm + n * cn];
  y[(size_t)m * N + n] = r;
}
