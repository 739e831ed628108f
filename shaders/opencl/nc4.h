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
#define NC4_STORE_IMAGE(X, x, y, width, v) write_imagef(X, (int2)((x), (y)), (v))
#define NC4_STORE_BUFFER(X, x, y, width, v) X[(size_t)(y) * (width) + (x)] = (v)

// Kernel parameter declarations and accesses for an NC4HW4 argument named X.
#define NC4_IN(X) TCL_CAT(NC4_IN_, X##_STORAGE)(X)
#define NC4_OUT(X) TCL_CAT(NC4_OUT_, X##_STORAGE)(X)
// width: the tensor's pixel row length, ceil(C/4) * W (used by the buffer storage only).
#define LOAD4(X, x, y, width) TCL_CAT(NC4_LOAD_, X##_STORAGE)(X, x, y, width)
#define STORE4(X, x, y, width, v) TCL_CAT(NC4_STORE_, X##_STORAGE)(X, x, y, width, v)
