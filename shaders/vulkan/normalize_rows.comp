// variants: INSTANCE, LAYER ; precision: fp32 fp16
// Normalises rows of length n by their mean and variance (fp32, two passes), then applies
// scale and bias: per channel (InstanceNormalization, row = (n, c) plane) or per element of
// the row (LayerNormalization, which may also write each row's Mean and InvStdDev).
// P: 0 rows, 1 n, 2 channels, 3 epsilon, 4 hasBias, 5 writeMean, 6 writeInvStd
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
TENSOR_IN(1, scale);
TENSOR_IN(2, bias);
TENSOR_OUT(3, y);
#ifdef LAYER
TENSOR_OUT(4, meanOut);
TENSOR_OUT(5, invStdOut);
#endif

void main() {
  uint row = gid();
  if (row >= P[0]) return;
  int n = pint(1);
  int base = int(row) * n;
  float mean = 0.0;
  for (int k = 0; k < n; ++k) mean += LD(x[base + k]);
  mean /= float(n);
  float var = 0.0;
  for (int k = 0; k < n; ++k) { float d = LD(x[base + k]) - mean; var += d * d; }
  var /= float(n);
  float inv = 1.0 / sqrt(var + pfloat(3));
  bool hasBias = pint(4) != 0;
#ifdef INSTANCE
  int c = int(row % P[2]);
  for (int k = 0; k < n; ++k) y[base + k] = ST((LD(x[base + k]) - mean) * inv * LD(scale[c]) + LD(bias[c]));
#else
  if (pint(5) != 0) meanOut[row] = ST(mean);
  if (pint(6) != 0) invStdOut[row] = ST(inv);
  for (int k = 0; k < n; ++k)
    y[base + k] = ST((LD(x[base + k]) - mean) * inv * LD(scale[k]) + (hasBias ? LD(bias[k]) : 0.0));
#endif
}
