// Concat of NC4HW4 tensors: each input's pixels copied into the output at an offset in
// channel blocks, batch, rows or columns (channel offsets are whole blocks of 4).
#include "common.h"

// global: (srcWidth, srcHeight)
__kernel void copy_nc4(NC4_IN(src), NC4_OUT(dst), int srcH, int srcW, int dstC4, int dstH,
                       int dstW, int offC4, int offN, int offH, int offW, int srcWidth,
                       int srcHeight) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= srcWidth || y >= srcHeight) return;
  const int c4 = x / srcW, w = x - c4 * srcW, n = y / srcH, h = y - n * srcH;
  const float4 v = LOAD4(src, x, y, srcWidth);
  STORE4(dst, (c4 + offC4) * dstW + w + offW, (n + offN) * dstH + h + offH, dstC4 * dstW, v);
}
