// Shared by every Tessera OpenCL kernel: precision types and the load/store layer that lets
// one kernel source serve NC4HW4 tensors stored as image2d or, past the device's image
// limits, as buffers. The storage of each NC4HW4 argument X is chosen per argument at build
// time with -DX_STORAGE=IMAGE or -DX_STORAGE=BUFFER (the runtime knows it once the tensors
// are allocated). An NC4HW4 tensor [N, C, H, W] is addressed by pixel (x, y) with
// x = (c / 4) * W + w and y = n * H + h; a buffer holds the same pixels row by row.
#ifndef FLOAT
#define FLOAT float
#endif
#define FLOAT4 float4  // arithmetic is fp32; fp16 (when used) is a storage format of images

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

// NC4HW4 arguments are named src, src1, src2 (inputs) and dst (output). A program holds
// several kernels, built with the options of the one in use: names it does not set
// default to images so the others still compile.
#ifndef src_STORAGE
#define src_STORAGE IMAGE
#endif
#ifndef src1_STORAGE
#define src1_STORAGE IMAGE
#endif
#ifndef src2_STORAGE
#define src2_STORAGE IMAGE
#endif
#ifndef dst_STORAGE
#define dst_STORAGE IMAGE
#endif

// Kernel parameter declarations and accesses for an NC4HW4 argument named X.
#define NC4_IN(X) TCL_CAT(NC4_IN_, X##_STORAGE)(X)
#define NC4_OUT(X) TCL_CAT(NC4_OUT_, X##_STORAGE)(X)
// width: the tensor's pixel row length, ceil(C/4) * W (used by the buffer storage only).
#define LOAD4(X, x, y, width) TCL_CAT(NC4_LOAD_, X##_STORAGE)(X, x, y, width)
#define STORE4(X, x, y, width, v) TCL_CAT(NC4_STORE_, X##_STORAGE)(X, x, y, width, v)

// Fused activation, chosen with -DACTIVATION=ACT_<kind> (default none).
#define ACT_NONE 0
#define ACT_RELU 1
#define ACT_RELU6 2
#ifndef ACTIVATION
#define ACTIVATION ACT_NONE
#endif
inline float4 activate4(float4 v) {
#if ACTIVATION == ACT_RELU
  return fmax(v, (float4)(0.f));
#elif ACTIVATION == ACT_RELU6
  return clamp(v, (float4)(0.f), (float4)(6.f));
#else
  return v;
#endif
}

// The lane `i` (0..3) of a vector.
inline float lane4(float4 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }
