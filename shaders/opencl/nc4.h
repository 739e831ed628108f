// The load/store layer for NC4HW4 tensors: one kernel source serves tensors stored as image2d
// or, past the device's image limits, as buffers. Shared by Tessera's kernels (through
// common.h) and prepended to custom kernels (docs/CUSTOM_KERNELS.md), so it is public API:
// change it only compatibly. The storage of each NC4HW4 argument X is chosen per argument at
// build time with -DX_STORAGE=IMAGE or -DX_STORAGE=BUFFER (the runtime knows it once the
// tensors are allocated). An NC4HW4 tensor [N, C, H, W] is addressed by pixel (x, y) with
// x = (c / 4) * W + w and y = n * H + h; a buffer holds the same pixels row by row.
#define TCL_CAT_(a, b) a##b
#define TCL_CAT(a, b) TCL_CAT_(a, b)

__constant sampler_t kSampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

#define NC4_IN_IMAGE(X) __read_only image2d_t X
#define NC4_IN_BUFFER(X) __global const float4* restrict X
#define NC4_OUT_IMAGE(X) __write_only image2d_t X
#define NC4_OUT_BUFFER(X) __global float4* restrict X
#define NC4_LOAD_IMAGE(X, x, y, width) read_imagef(X, kSampler, (int2)((x), (y)))
#define NC4_LOAD_BUFFER(X, x, y, width) X[(size_t)(y) * (width) + (x)]
#ifdef TCL_HALF_IMAGES
// fp16 images (defined by the runtime in fp16 mode): write_imagef may convert to half by
// truncation (the OpenCL spec allows it, and an NVIDIA driver does), a bias toward zero that
// grows layer by layer. Round to nearest-even here, in integer arithmetic, so the value
// written is exactly a half and the store's own rounding never matters. Saturates at ±65504;
// NaN stays NaN.
inline float4 tcl_round_half4(float4 v) {
  const float4 c = clamp(v, -65504.f, 65504.f);
  const uint4 bits = as_uint4(c), mag = bits & 0x7fffffffu;
  // Normal halves keep 10 of the 23 mantissa bits (a carry into the exponent is right);
  // below 2^-14 the half's step is 2^-24 (scaling by powers of 2 is exact).
  const uint4 normal = (bits & 0x80000000u) | ((mag + 0x0fffu + ((mag >> 13) & 1u)) & ~0x1fffu);
  const float4 small = rint(c * 16777216.f) * (1.f / 16777216.f);
  return select(select(as_float4(normal), small, mag < (uint4)(0x38800000u)), v, isnan(v));
}
#define NC4_STORE_IMAGE(X, x, y, width, v) write_imagef(X, (int2)((x), (y)), tcl_round_half4(v))
#else
#define NC4_STORE_IMAGE(X, x, y, width, v) write_imagef(X, (int2)((x), (y)), (v))
#endif
#define NC4_STORE_BUFFER(X, x, y, width, v) X[(size_t)(y) * (width) + (x)] = (v)

// Kernel parameter declarations and accesses for an NC4HW4 argument named X.
#define NC4_IN(X) TCL_CAT(NC4_IN_, X##_STORAGE)(X)
#define NC4_OUT(X) TCL_CAT(NC4_OUT_, X##_STORAGE)(X)
// width: the tensor's pixel row length, ceil(C/4) * W (used by the buffer storage only).
#define LOAD4(X, x, y, width) TCL_CAT(NC4_LOAD_, X##_STORAGE)(X, x, y, width)
#define STORE4(X, x, y, width, v) TCL_CAT(NC4_STORE_, X##_STORAGE)(X, x, y, width, v)
