// Shared by every kernel: the 1-D invocation index over a 2-D grid of 64-wide groups, the
// dispatch's 32-bit parameters (push constants: 128 bytes, the guaranteed minimum; cheaper
// than a buffer read on every device, by far on lavapipe), and tensor declarations.
// Tensors are storage buffers of `float` here; the macros are the one place a storage
// change is made.
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
#define ST(v) STORAGE(clamp(v, -65504.0, 65504.0))
#else
#define ST(v) (v)
#endif
layout(local_size_x = 64) in;
layout(push_constant) uniform Params { uint P[32]; };

#define TENSOR_IN(b, name) layout(std430, set = 0, binding = b) readonly buffer Buf##b { STORAGE name[]; }
#define TENSOR_OUT(b, name) layout(std430, set = 0, binding = b) writeonly buffer Buf##b { STORAGE name[]; }
#define TENSOR4_IN(b, name) layout(std430, set = 0, binding = b) readonly buffer Buf##b { STORAGE4 name[]; }
// Always fp32 (host tables, staging buffers).
#define F32_IN(b, name) layout(std430, set = 0, binding = b) readonly buffer Buf##b { float name[]; }
#define F32_OUT(b, name) layout(std430, set = 0, binding = b) writeonly buffer Buf##b { float name[]; }

uint gid() { return gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u + gl_GlobalInvocationID.x; }
int pint(int i) { return int(P[i]); }
float pfloat(int i) { return uintBitsToFloat(P[i]); }

// Activation codes shared by kernels with a fused activation (must match VulkanOps.hpp).
float activate(int code, float v, float a, float b) {
  if (code == 1) return max(v, 0.0);
  if (code == 2) return clamp(v, a, b);
  if (code == 3) return v < 0.0 ? v * a : v;
  if (code == 4) return 1.0 / (1.0 + exp(-v));
  return v;
}
