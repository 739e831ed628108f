// variants: BLOCK, SPLIT ; precision: fp32 fp16
// Batched matrix product y = alpha * A' B' + beta * C with element strides, so one kernel
// serves MatMul (batch broadcasting through stride-0 batch dims) and Gemm (transposes).
// Each 4x4 block of y (rows m0.., columns n0..) is one invocation's (BLOCK), so each loaded
// element of A and B feeds four multiply-adds; or, for few blocks and a long K (SPLIT,
// core/src/SplitReduction.hpp), P[26] = `lanes` invocations of one work-group share a block,
// each summing every lanes-th k, and a tree in work-group memory merges their sums. P[0]
// counts blocks.
// P: 0 count, 1 M, 2 N, 3 K, 4 aRow, 5 aCol, 6 bRow, 7 bCol, 8 alpha, 9 beta, 10 hasC,
//    11 cRow, 12 cCol, 13 batchRank (<= 4), 14..17 batch dims, 18..21 a batch strides,
//    22..25 b batch strides, 26 lanes (SPLIT), 27 fused activation code (MatMul's, see
//    ops/MatMul.hpp; 0 none), 28 29 its parameters, 30 hasZ (MatMul's residual Z, the
//    output's shape, added after C; Gemm binds a placeholder and 0)
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, a);
TENSOR_IN(1, b);
TENSOR_IN(2, c);
TENSOR_OUT(3, y);
TENSOR_IN(4, z);

#ifdef SPLIT
shared float splitSums[64][16];
#endif

void main() {
#ifdef SPLIT
  uint lanes = P[26], me = gl_LocalInvocationID.x, lane = gid() % lanes, i = gid() / lanes;
  bool valid = i < P[0];  // no early return: every invocation meets the barriers
  if (!valid) i = 0u;
#else
  uint i = gid(), lanes = 1u, lane = 0u;
  if (i >= P[0]) return;
#endif
  int M = pint(1), N = pint(2), K = pint(3);
  int NB = (N + 3) / 4, MB = (M + 3) / 4;
  int n0 = int(i % uint(NB)) * 4, m0 = int((i / uint(NB)) % uint(MB)) * 4;
  uint batch = i / uint(MB * NB);
  uint outBatch = batch;
  int aOff = 0, bOff = 0;
  for (int d = pint(13) - 1; d >= 0; --d) {
    uint dim = P[14 + d];
    int cidx = int(batch % dim);
    batch /= dim;
    aOff += cidx * pint(18 + d);
    bOff += cidx * pint(22 + d);
  }
  int aRow = pint(4), aCol = pint(5), bRow = pint(6), bCol = pint(7);
  // Rows / columns past the edge re-read the last one (results discarded).
  int mr[4], nc[4];
  for (int j = 0; j < 4; ++j) {
    mr[j] = aOff + min(m0 + j, M - 1) * aRow;
    nc[j] = bOff + min(n0 + j, N - 1) * bCol;
  }
  float acc[4][4];
  for (int r = 0; r < 4; ++r)
    for (int q = 0; q < 4; ++q) acc[r][q] = 0.0;
#ifdef SPLIT
  int kFirst = valid ? int(lane) : K;
#else
  int kFirst = 0;
#endif
  for (int k = kFirst; k < K; k += int(lanes)) {
    float av[4], bv[4];
    for (int j = 0; j < 4; ++j) {
      av[j] = LD(a[mr[j] + k * aCol]);
      bv[j] = LD(b[nc[j] + k * bRow]);
    }
    for (int r = 0; r < 4; ++r)
      for (int q = 0; q < 4; ++q) acc[r][q] += av[r] * bv[q];
  }
#ifdef SPLIT
  for (int r = 0; r < 4; ++r)
    for (int q = 0; q < 4; ++q) splitSums[me][r * 4 + q] = acc[r][q];
  barrier();
  for (uint s = lanes / 2u; s > 0u; s >>= 1) {
    if (lane < s)
      for (int e = 0; e < 16; ++e) splitSums[me][e] += splitSums[me + s][e];
    barrier();
  }
  if (!valid || lane != 0u) return;
  for (int r = 0; r < 4; ++r)
    for (int q = 0; q < 4; ++q) acc[r][q] = splitSums[me][r * 4 + q];
#endif
  float alpha = pfloat(8), beta = pfloat(9);
  bool hasC = pint(10) != 0, hasZ = pint(30) != 0;
  for (int r = 0; r < 4; ++r) {
    int m = m0 + r;
    if (m >= M) break;
    for (int q = 0; q < 4; ++q) {
      int n = n0 + q;
      if (n >= N) break;
      float v = acc[r][q] * alpha;
      if (hasC) v += beta * LD(c[m * pint(11) + n * pint(12)]);
      int at = (int(outBatch) * M + m) * N + n;
      if (hasZ) v += LD(z[at]);
      v = activate(pint(27), v, pfloat(28), pfloat(29));
      y[at] = ST(v);
    }
  }
}
