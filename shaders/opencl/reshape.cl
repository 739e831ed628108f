// Data movement on plain buffers, for any element type: T is chosen by the element size
// (-DT=uchar|ushort|uint|ulong). Concat, Split, Transpose, Slice, DepthToSpace...
#ifndef T
#define T uint
#endif

// dst[o * dstRow + dstOffset + r] = src[o * srcRow + srcOffset + r] for r < rowLength.
// global: (rowLength, rows)
__kernel void copy_rows(__global const T* src, __global T* dst, int rowLength, int rows,
                        int srcRow, int srcOffset, int dstRow, int dstOffset) {
  const int r = get_global_id(0), o = get_global_id(1);
  if (r >= rowLength || o >= rows) return;
  dst[(size_t)o * dstRow + dstOffset + r] = src[(size_t)o * srcRow + srcOffset + r];
}

// A strided gather, rank <= 8: output index -> input offset sum((start[d] + i[d]*step[d]) *
// stride[d]) (Transpose: start 0, step 1, strides permuted; Slice: starts and steps).
// global: (count)
__kernel void gather_strided(__global const T* src, __global T* dst, int count, int rank,
                             int8 dims, int8 starts, int8 steps, int8 strides) {
  const int i = get_global_id(0);
  if (i >= count) return;
  const int d[8] = {dims.s0, dims.s1, dims.s2, dims.s3, dims.s4, dims.s5, dims.s6, dims.s7};
  const int st[8] = {starts.s0, starts.s1, starts.s2, starts.s3, starts.s4, starts.s5, starts.s6, starts.s7};
  const int sp[8] = {steps.s0, steps.s1, steps.s2, steps.s3, steps.s4, steps.s5, steps.s6, steps.s7};
  const int sd[8] = {strides.s0, strides.s1, strides.s2, strides.s3, strides.s4, strides.s5, strides.s6, strides.s7};
  int rest = i;
  long off = 0;
  for (int k = rank - 1; k >= 0; --k) {
    const int idx = rest % d[k];
    rest /= d[k];
    off += (long)(st[k] + idx * sp[k]) * sd[k];
  }
  dst[i] = src[off];
}

// Gather along an axis: data viewed as [outer, axisLen, inner], indices (IDX = int or long,
// negative counting from the end; clamped so a bad index never reads outside `data`).
// global: (count)
#ifndef IDX
#define IDX long
#endif
__kernel void gather_axis(__global const T* data, __global const IDX* indices, __global T* dst,
                          int count, int nIndices, int axisLen, int inner) {
  const int i = get_global_id(0);
  if (i >= count) return;
  const int r = i % inner;
  const int j = (i / inner) % nIndices;
  const int o = i / (inner * nIndices);
  long idx = (long)indices[j];
  if (idx < 0) idx += axisLen;
  idx = clamp(idx, 0L, (long)axisLen - 1);
  dst[i] = data[((size_t)o * axisLen + idx) * inner + r];
}

// Where: dst = cond ? a : b with numpy broadcasting (rank <= 8; strides 0 where broadcast).
// cond is bool (uchar). global: (count)
__kernel void where_select(__global const uchar* cond, __global const T* a, __global const T* b,
                           __global T* dst, int count, int rank, int8 dims, int8 cStrides,
                           int8 aStrides, int8 bStrides) {
  const int i = get_global_id(0);
  if (i >= count) return;
  const int d[8] = {dims.s0, dims.s1, dims.s2, dims.s3, dims.s4, dims.s5, dims.s6, dims.s7};
  const int cs[8] = {cStrides.s0, cStrides.s1, cStrides.s2, cStrides.s3, cStrides.s4, cStrides.s5, cStrides.s6, cStrides.s7};
  const int as[8] = {aStrides.s0, aStrides.s1, aStrides.s2, aStrides.s3, aStrides.s4, aStrides.s5, aStrides.s6, aStrides.s7};
  const int bs[8] = {bStrides.s0, bStrides.s1, bStrides.s2, bStrides.s3, bStrides.s4, bStrides.s5, bStrides.s6, bStrides.s7};
  int rest = i, ci = 0, ai = 0, bi = 0;
  for (int k = rank - 1; k >= 0; --k) {
    const int idx = rest % d[k];
    rest /= d[k];
    ci += idx * cs[k];
    ai += idx * as[k];
    bi += idx * bs[k];
  }
  dst[i] = cond[ci] ? a[ai] : b[bi];
}
