// Concat of two to four NC4HW4 tensors along channels in one kernel (every input but the
// last a multiple of 4 channels): each output pixel's four channels come from the input whose
// blocks hold them. Inputs past the count are bound to a placeholder whose first block is past
// every block. (Its own program: the copy_nc4 builds of concat.cl name other storages.)
#include "common.h"

// global: (dstC4 * W, N * H)
__kernel void concat_channels(NC4_IN(src0), NC4_IN(src1), NC4_IN(src2), NC4_IN(src3), NC4_OUT(dst),
                              int W, int dstC4, int height, int first1, int first2, int first3,
                              int c4s0, int c4s1, int c4s2, int c4s3) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= dstC4 * W || y >= height) return;
  const int c4 = x / W, w = x - c4 * W;
  float4 v;
  if (c4 >= first3) v = LOAD4(src3, (c4 - first3) * W + w, y, c4s3 * W);
  else if (c4 >= first2) v = LOAD4(src2, (c4 - first2) * W + w, y, c4s2 * W);
  else if (c4 >= first1) v = LOAD4(src1, (c4 - first1) * W + w, y, c4s1 * W);
  else v = LOAD4(src0, c4 * W + w, y, c4s0 * W);
  STORE4(dst, x, y, dstC4 * W, v);
}
