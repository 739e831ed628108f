#include "backends/vulkan/GlslCompiler.hpp"

#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>

#include <memory>
#include <mutex>
#include <sstream>

#include "backends/vulkan/ShaderBinary.hpp"

namespace tessera {
namespace vulkan {
namespace {

std::mutex& glslangMutex() {  // glslang keeps process-wide state; compile one at a time
  static std::mutex m;
  return m;
}

// The text glslang sees: #version, the defines, the prelude, then the source from its line 1
// (its own #version line blanked so the numbering holds).
std::string assemble(const std::string& source, const std::vector<std::string>& defines, bool prelude) {
  std::ostringstream out;
  out << "#version 450\n";
  for (const std::string& d : defines) {
    const size_t eq = d.find('=');
    out << "#define " << (eq == std::string::npos ? d : d.substr(0, eq) + " " + d.substr(eq + 1)) << "\n";
  }
  if (prelude) out << vkshaders::prelude() << "\n";
  out << "#line 1\n";
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(" \t");
    out << (first != std::string::npos && line.compare(first, 8, "#version") == 0 ? "" : line) << "\n";
  }
  return out.str();
}

}  // namespace

Status compileGlsl(const std::string& name, const std::string& source, const std::vector<std::string>& defines,
                   bool prelude, std::vector<uint32_t>* spirv) {
  const std::string text = assemble(source, defines, prelude);
  std::lock_guard<std::mutex> lock(glslangMutex());
  static const bool initialised = glslang_initialize_process() != 0;
  if (!initialised) return Status::internal("Vulkan: glslang failed to initialise");
  glslang_input_t in{};
  in.language = GLSLANG_SOURCE_GLSL;
  in.stage = GLSLANG_STAGE_COMPUTE;
  in.client = GLSLANG_CLIENT_VULKAN;
  in.client_version = GLSLANG_TARGET_VULKAN_1_1;
  in.target_language = GLSLANG_TARGET_SPV;
  in.target_language_version = GLSLANG_TARGET_SPV_1_3;
  in.code = text.c_str();
  in.default_version = 450;
  in.default_profile = GLSLANG_NO_PROFILE;
  in.messages = static_cast<glslang_messages_t>(GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT);
  in.resource = glslang_default_resource();
  std::unique_ptr<glslang_shader_t, void (*)(glslang_shader_t*)> shader(glslang_shader_create(&in),
                                                                        glslang_shader_delete);
  const std::string what = "Vulkan: GLSL kernel '" + name + "' does not compile:\n";
  if (!glslang_shader_preprocess(shader.get(), &in) || !glslang_shader_parse(shader.get(), &in))
    return Status::invalid(what + glslang_shader_get_info_log(shader.get()));
  std::unique_ptr<glslang_program_t, void (*)(glslang_program_t*)> program(glslang_program_create(),
                                                                          glslang_program_delete);
  glslang_program_add_shader(program.get(), shader.get());
  if (!glslang_program_link(program.get(), in.messages))
    return Status::invalid(what + glslang_program_get_info_log(program.get()));
  glslang_program_SPIRV_generate(program.get(), GLSLANG_STAGE_COMPUTE);
  if (const char* msg = glslang_program_SPIRV_get_messages(program.get()))
    if (*msg) return Status::invalid(what + msg);
  const size_t words = glslang_program_SPIRV_get_size(program.get());
  spirv->resize(words);
  glslang_program_SPIRV_get(program.get(), spirv->data());
  return Status::ok();
}

}  // namespace vulkan
}  // namespace tessera
