// variants: INSTANCE, LAYER, INSTANCE_GROUP, LAYER_GROUP ; precision: fp32 fp16 ; subgroup: INSTANCE_GROUP LAYER_GROUP
// Normalises rows of length n by their mean and variance (fp32, two passes), then applies
// scale and bias: per channel (InstanceNormalization, row = (n, c) plane) or per element of
// the row (LayerNormalization, which may also write each row's Mean and InvStdDev).
// A row per invocation; *_GROUP (long rows: a whole image plane, a wide hidden state): a row
// per work-group of 64, the sums met in workgroup.glsl's tree, so no invocation walks a whole
// row (a GPU left idle; lavapipe's loop limit, docs/VULKAN.md).
// P: 0 rows, 1 n, 2 channels, 3 epsilon, 4 hasBias, 5 writeMean, 6 writeInvStd
#version 450
#extension GL_GOOGLE_include_directive : require
#if defined(INSTANCE_GROUP) || defined(LAYER_GROUP)
#define GROUP
#endif
#ifdef INSTANCE_GROUP
#define INSTANCE
#endif
#ifdef LAYER_GROUP
#define LAYER
#endif
#include "common.glsl"
#include "lines.glsl"
TENSOR_IN(0, x);
TENSOR_IN(1, scale);
TENSOR_IN(2, bias);
TENSOR_OUT(3, y);
#ifdef LAYER
TENSOR_OUT(4, meanOut);
TENSOR_OUT(5, invStdOut);
#endif

void main() {
  uint row = lineIndex();
  if (row >= P[0]) return;
  int n = pint(1);
  int base = int(row) * n;
  float mean = 0.0;
  for (int k = lineFirst(); k < n; k += LINE_STEP) mean += LD(x[base + k]);
  mean = lineSum(mean) / float(n);
  float var = 0.0;
  for (int k = lineFirst(); k < n; k += LINE_STEP) { float d = LD(x[base + k]) - mean; var += d * d; }
  var = lineSum(var) / float(n);
  float inv = 1.0 / sqrt(var + pfloat(3));
  bool hasBias = pint(4) != 0;
#ifdef INSTANCE
  int c = int(row % P[2]);
  float a = inv * LD(scale[c]), b = LD(bias[c]);
  for (int k = lineFirst(); k < n; k += LINE_STEP) y[base + k] = ST((LD(x[base + k]) - mean) * a + b);
#else
  if (lineLeader() && pint(5) != 0) meanOut[row] = ST(mean);
  if (lineLeader() && pint(6) != 0) invStdOut[row] = ST(inv);
  for (int k = lineFirst(); k < n; k += LINE_STEP)
    y[base + k] = ST((LD(x[base + k]) - mean) * inv * LD(scale[k]) + (hasBias ? LD(bias[k]) : 0.0));
#endif
}
