// Shared by every kernel: the 1-D invocation index over a 2-D grid of 64-wide groups, the
// dispatch's 32-bit parameters (push constants: 128 bytes, the guaranteed minimum; cheaper
// than a buffer read on every device, by far on lavapipe), and tensor declarations.
// Plain tensors are storage buffers of `float`; NC4HW4 tensors are 2-D storage images (see
// NC4_IN below). These macros are the one place a storage change is made.
#ifdef SUBGROUP
// Builds whose work-group trees start in subgroups (workgroup.glsl), run where the device
// has subgroup arithmetic in compute shaders.
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#ifdef FP16
// fp16 storage, fp32 arithmetic: loads convert up (LD), stores convert down (ST).
#extension GL_EXT_shader_16bit_storage : require
#define STORAGE float16_t
#define STORAGE4 f16vec4
#else
#define STORAGE float
#define STORAGE4 vec4
#endif
#define LD(v) float(v)
#define LD4(v) vec4(v)
#ifdef FP16
// Every conversion to fp16 rounds here, to nearest with ties to even, in integer arithmetic:
// the value returned is exactly an fp16 value, so the conversion that follows (a float16_t
// store, an rgba16f image store) is exact whatever rounding the driver picks. Drivers differ:
// lavapipe's rgba16f store truncates, and so did an NVIDIA driver's packHalf2x16 and image
// store on most values, a bias toward zero that grew layer by layer. v is first saturated
// to the fp16 range (±65504, which rounding cannot pass); NaN stays NaN.
float roundToHalf(float v) {
  if ((floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u) return v;  // NaN (clamp's is undefined)
  v = clamp(v, -65504.0, 65504.0);
  uint bits = floatBitsToUint(v), mag = bits & 0x7fffffffu;
  // Below fp16's smallest normal (2^-14) its step is 2^-24: scaling by powers of 2 is exact.
  if (mag < 0x38800000u) return roundEven(v * 16777216.0) * (1.0 / 16777216.0);
  // Normal: keep 10 of fp32's 23 mantissa bits; a carry into the exponent is right.
  mag = (mag + 0x0fffu + ((mag >> 13) & 1u)) & ~0x1fffu;
  return uintBitsToFloat((bits & 0x80000000u) | mag);
}
#define ST(v) STORAGE(roundToHalf(v))
vec4 toHalf4(vec4 v) {
  return vec4(roundToHalf(v.x), roundToHalf(v.y), roundToHalf(v.z), roundToHalf(v.w));
}
#define ST4(v) toHalf4(v)
#else
#define ST(v) (v)
#define ST4(v) (v)
#endif
layout(local_size_x = 64) in;
layout(push_constant) uniform Params { uint P[32]; };

#define TENSOR_IN(b, name) layout(std430, set = 0, binding = b) readonly buffer Buf##b { STORAGE name[]; }
#define TENSOR_OUT(b, name) layout(std430, set = 0, binding = b) writeonly buffer Buf##b { STORAGE name[]; }
#define TENSOR4_IN(b, name) layout(std430, set = 0, binding = b) readonly buffer Buf##b { STORAGE4 name[]; }
// Always fp32 (host tables, staging buffers, conv weights and biases).
#define F32_IN(b, name) layout(std430, set = 0, binding = b) readonly buffer Buf##b { float name[]; }
#define F32X4_IN(b, name) layout(std430, set = 0, binding = b) readonly buffer Buf##b { vec4 name[]; }
#define F32_OUT(b, name) layout(std430, set = 0, binding = b) writeonly buffer Buf##b { float name[]; }

// NC4HW4 operands. A kernel over NC4HW4 tensors is built twice: with IMAGE (its NC4HW4
// operands are rgba storage images, pixel (c4 * W + x, n * H + y)) and without (the same
// operands are NCHW buffers, read and written 4 channels at a time) for tensors that cannot
// be images. NC4_IN(b, T) declares operand T and `vec4 load_T(g, n, c4, y, x)`; NC4_OUT
// declares `store_T(g, n, c4, y, x, v)`, which writes 0 to the lanes past C. g is the
// tensor's ivec3(C, H, W) (rank 5: H = D * H of the tensor in buffers).
#ifdef FP16
#define IMG_FMT rgba16f
#else
#define IMG_FMT rgba32f
#endif
vec4 lanes(vec4 v, int c4, int C) {
  int left = C - c4 * 4;
  return left >= 4 ? v : vec4(v.x, left > 1 ? v.y : 0.0, left > 2 ? v.z : 0.0, 0.0);
}
#ifdef IMAGE
#define NC4_IN(b, T)                                                                               \
  layout(set = 0, binding = b, IMG_FMT) uniform readonly image2D T;                                \
  vec4 load_##T(ivec3 g_, int n_, int c4_, int y_, int x_) {                                       \
    return imageLoad(T, ivec2(c4_ * g_.z + x_, n_ * g_.y + y_));                                   \
  }                                                                                                \
  vec4 load_##T(ivec3, int, int, int, int)  // (lets the use end with ';')
#define NC4_OUT(b, T)                                                                              \
  layout(set = 0, binding = b, IMG_FMT) uniform writeonly image2D T;                               \
  void store_##T(ivec3 g_, int n_, int c4_, int y_, int x_, vec4 v_) {                             \
    imageStore(T, ivec2(c4_ * g_.z + x_, n_ * g_.y + y_), ST4(lanes(v_, c4_, g_.x)));              \
  }                                                                                                \
  void store_##T(ivec3, int, int, int, int, vec4)  // (lets the use end with ';')
#else
#define NC4_IN(b, T)                                                                               \
  TENSOR_IN(b, T);                                                                                 \
  vec4 load_##T(ivec3 g_, int n_, int c4_, int y_, int x_) {                                       \
    int p_ = g_.y * g_.z, i_ = ((n_ * g_.x + c4_ * 4) * g_.y + y_) * g_.z + x_, l_ = g_.x - c4_ * 4; \
    return vec4(LD(T[i_]), l_ > 1 ? LD(T[i_ + p_]) : 0.0,                                          \
                l_ > 2 ? LD(T[i_ + 2 * p_]) : 0.0, l_ > 3 ? LD(T[i_ + 3 * p_]) : 0.0);             \
  }                                                                                                \
  vec4 load_##T(ivec3, int, int, int, int)  // (lets the use end with ';')
#define NC4_OUT(b, T)                                                                              \
  TENSOR_OUT(b, T);                                                                                \
  void store_##T(ivec3 g_, int n_, int c4_, int y_, int x_, vec4 v_) {                             \
    int p_ = g_.y * g_.z, i_ = ((n_ * g_.x + c4_ * 4) * g_.y + y_) * g_.z + x_, l_ = g_.x - c4_ * 4; \
    T[i_] = ST(v_.x);                                                                              \
    if (l_ > 1) T[i_ + p_] = ST(v_.y);                                                             \
    if (l_ > 2) T[i_ + 2 * p_] = ST(v_.z);                                                         \
    if (l_ > 3) T[i_ + 3 * p_] = ST(v_.w);                                                         \
  }                                                                                                \
  void store_##T(ivec3, int, int, int, int, vec4)  // (lets the use end with ';')
#endif

// The NC4HW4 pixel ivec4(n, c4, y, x) of pixel index i of a tensor of grid g = (C, H, W).
ivec4 pixelOf(uint i, ivec3 g) {
  int x = int(i % uint(g.z)), r = int(i / uint(g.z));
  int y = r % g.y, c4 = (r / g.y) % ((g.x + 3) / 4);
  return ivec4(r / (g.y * ((g.x + 3) / 4)), c4, y, x);
}

uint gid() { return gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u + gl_GlobalInvocationID.x; }
int pint(int i) { return int(P[i]); }
float pfloat(int i) { return uintBitsToFloat(P[i]); }

float erfApprox(float v) {  // Abramowitz-Stegun 7.1.26, |error| < 1.5e-7
  float s = sign(v), a = abs(v);
  float t = 1.0 / (1.0 + 0.3275911 * a);
  float p = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return s * (1.0 - p * exp(-a * a));
}

// tanh for any x: (1 - e^-2|x|) / (1 + e^-2|x|) with x's sign. GLSL's tanh may be computed
// from e^2x, which overflows to inf / inf = NaN for large |x| on some drivers.
float tanhSafe(float v) {
  float e = exp(-2.0 * abs(v));
  return sign(v) * (1.0 - e) / (1.0 + e);
}

// Fused activations: the codes are FusedActivation::Kind's (ops/FusedActivation.hpp).
float activate(int code, float v, float a, float b) {
  if (code == 1) return max(v, 0.0);
  if (code == 2) return clamp(v, a, b);
  if (code == 3) return v < 0.0 ? v * a : v;
  if (code == 4) return 1.0 / (1.0 + exp(-v));
  if (code == 5) return clamp(a * v + b, 0.0, 1.0);
  if (code == 6) return v * clamp(v / 6.0 + 0.5, 0.0, 1.0);
  if (code == 7) return v / (1.0 + exp(-a * v));
  if (code == 8) return 0.5 * v * (1.0 + erfApprox(v * 0.70710678));
  if (code == 9) return 0.5 * v * (1.0 + tanhSafe((v + 0.044715 * v * v * v) * 0.7978845608));
  return v;
}
vec4 activate4(int code, vec4 v, float a, float b) {
  return vec4(activate(code, v.x, a, b), activate(code, v.y, a, b), activate(code, v.z, a, b),
              activate(code, v.w, a, b));
}
