// A built-in Vulkan kernel's SPIR-V, embedded by tools/codegen/vulkan_shaders.py. Each
// kernel file's identifiers (vkshaders::conv_GEMM, ...) are declared in its own generated
// header, "vulkan/shaders/<file>.hpp": an op includes the headers of the kernels it uses, so
// adding a kernel rebuilds only what uses it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tessera {
namespace vkshaders {

struct ShaderBinary {
  const char* name;
  const uint32_t* words;
  size_t wordCount;
  uint64_t hash;             // of the SPIR-V
  const ShaderBinary* fp16;  // the fp16 build, or nullptr when the kernel declares none
  // The build whose work-group trees start in subgroups (GL_KHR_shader_subgroup_arithmetic),
  // or nullptr when the kernel declares none (`; subgroup: ...`).
  const ShaderBinary* subgroup;
};
using ShaderId = const ShaderBinary*;

// The fp16 build of a kernel, or `id` itself when it declares none.
inline ShaderId fp16Of(ShaderId id) { return id->fp16 ? id->fp16 : id; }
// The shared GLSL every kernel includes (common.glsl), for kernels compiled at run time.
const char* prelude();
// Of every built-in kernel's name and SPIR-V: part of the pipeline-cache file's key.
uint64_t allShadersHash();

}  // namespace vkshaders
}  // namespace tessera
