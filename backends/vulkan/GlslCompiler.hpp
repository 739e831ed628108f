// GLSL compute source -> SPIR-V at run time, with glslang linked into the library: the
// path of custom Vulkan kernels (tessera/VulkanKernel.hpp). Built-in kernels are compiled
// at build time instead (tools/codegen/vulkan_shaders.py).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/Status.hpp"

namespace tessera {
namespace vulkan {

// Compiles `source` (GLSL 450 compute) for Vulkan 1.1 / SPIR-V 1.3 after `defines` (NAME or
// NAME=VALUE). With `prelude`, Tessera's kernel prelude (shaders/vulkan/common.glsl: push
// parameters P[], gid(), 64-wide groups, the NC4_IN/NC4_OUT layer) comes first; the
// source's own #version line may stay, and messages keep the source's line numbers.
// A failure returns kInvalidArgument with glslang's log, naming `name`.
Status compileGlsl(const std::string& name, const std::string& source, const std::vector<std::string>& defines,
                   bool prelude, std::vector<uint32_t>* spirv);

}  // namespace vulkan
}  // namespace tessera
