// variants: GEMM, DEPTHWISE, TRANSPOSED, COPY ; precision: fp32 fp16
// Packs conv weights [M][C/group][K] that the graph computes at run time for conv.comp
// (constant ones are packed on the host, by the same rule: backends/vulkan/ops/ConvWeights.hpp),
// zero-filling the channels past M and C/group so the kernel needs no edge tests:
//   GEMM:      vec4 w[((m4 * Cg4 + c4) * K + k) * 4 + i] = weights of output channels
//              4*m4..+3 for input channel 4*c4 + i (a 4x4 block per tap).
//   DEPTHWISE: vec4 w[m4 * K + k] = weights of channels 4*m4..+3 (C/group = 1).
//   TRANSPOSED: the GEMM blocks from ConvTranspose weights [C][M/group][K] (conv_transpose.comp).
//   COPY:      w as it is (weights read unpacked, or a bias), in fp32 from an fp16 tensor.
// The packed weights are fp32 in both builds (ConvWeights.hpp says why).
// One invocation per packed float. P: 0 count, 1 M, 2 Cg, 3 K, 4 M/group
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, w);
F32_OUT(1, packed);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
#ifdef COPY
  packed[i] = LD(w[i]);
#else
  int M = pint(1), Cg = pint(2), K = pint(3);
  int lane = int(i % 4u);  // output channel within the block of 4
  int rest = int(i / 4u);
#if defined(GEMM) || defined(TRANSPOSED)
  int ci = rest % 4; rest /= 4;
  int k = rest % K; rest /= K;
  int Cg4 = (Cg + 3) / 4;
  int c = (rest % Cg4) * 4 + ci, m = (rest / Cg4) * 4 + lane;
#else
  int k = rest % K, c = 0, m = (rest / K) * 4 + lane;
#endif
#ifdef TRANSPOSED
  int Mg = pint(4), g = m / Mg;
  int source = ((g * Cg + c) * Mg + m % Mg) * K + k;
#else
  int source = (m * Cg + c) * K + k;
#endif
  packed[i] = (m < M && c < Cg) ? LD(w[source]) : 0.0;
#endif
}
