# Vulkan backend: volk (compiled in, loads libvulkan at run time), the shader codegen
# (GLSL -> SPIR-V -> generated C++ map), and the backend's sources. Included by the top
# level CMakeLists.txt when TESSERA_VULKAN is ON.
find_path(TESSERA_VOLK_DIR volk.h volk.c PATHS /usr/include NO_DEFAULT_PATH)
find_path(TESSERA_VULKAN_HEADERS vulkan/vulkan_core.h)
find_program(TESSERA_GLSLANG glslangValidator)
find_program(TESSERA_SPIRV_VAL spirv-val)
# glslang is also linked in, for custom kernels compiled at run time (GlslCompiler.cpp).
find_package(Threads QUIET)
find_package(glslang QUIET)

set(_vk_missing "")
if(NOT TESSERA_VOLK_DIR OR NOT EXISTS ${TESSERA_VOLK_DIR}/volk.c)
  list(APPEND _vk_missing "volk (libvulkan-volk-dev)")
endif()
if(NOT TESSERA_VULKAN_HEADERS)
  list(APPEND _vk_missing "Vulkan headers (libvulkan-dev)")
endif()
if(NOT TESSERA_GLSLANG)
  list(APPEND _vk_missing "glslangValidator (glslang-tools)")
endif()
if(NOT TESSERA_SPIRV_VAL)
  list(APPEND _vk_missing "spirv-val (spirv-tools)")
endif()
if(NOT TARGET glslang::glslang OR NOT TARGET glslang::glslang-default-resource-limits)
  list(APPEND _vk_missing "the glslang library (glslang-dev)")
endif()

if(_vk_missing)
  message(STATUS "Vulkan backend: OFF (missing: ${_vk_missing})")
  return()
endif()
message(STATUS "Vulkan backend: ON (glslang ${TESSERA_GLSLANG}, volk ${TESSERA_VOLK_DIR})")

set(TESSERA_VK_GEN ${TESSERA_GEN_DIR}/vulkan)
# A new kernel is picked up at the next build (CONFIGURE_DEPENDS re-globs).
file(GLOB TESSERA_VK_SHADERS CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/shaders/vulkan/*.comp ${CMAKE_SOURCE_DIR}/shaders/vulkan/*.glsl)
# One generated header per kernel file (its identifiers) and one .cpp with every binary; the
# generator rewrites a file only when its content changes, and Ninja re-checks outputs after
# a custom command (restat), so adding a kernel rebuilds only the C++ that includes it.
set(TESSERA_VK_GEN_HEADERS "")
foreach(comp ${TESSERA_VK_SHADERS})
  if(comp MATCHES "\\.comp$")
    get_filename_component(stem ${comp} NAME_WE)
    string(REGEX REPLACE "[^A-Za-z0-9_]" "_" stem ${stem})
    list(APPEND TESSERA_VK_GEN_HEADERS ${TESSERA_VK_GEN}/shaders/${stem}.hpp)
  endif()
endforeach()
add_custom_command(
  OUTPUT ${TESSERA_VK_GEN_HEADERS} ${TESSERA_VK_GEN}/VulkanShaders.cpp
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/codegen/vulkan_shaders.py
          --src ${CMAKE_SOURCE_DIR}/shaders/vulkan --out ${TESSERA_VK_GEN}
          --glslang ${TESSERA_GLSLANG} --spirv-val ${TESSERA_SPIRV_VAL}
  DEPENDS ${TESSERA_VK_SHADERS} ${CMAKE_SOURCE_DIR}/tools/codegen/vulkan_shaders.py
          ${CMAKE_SOURCE_DIR}/tools/codegen/generated_file.py
  COMMENT "Compiling Vulkan shaders to SPIR-V")

file(GLOB TESSERA_VK_SOURCES CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/backends/vulkan/*.cpp
  ${CMAKE_SOURCE_DIR}/backends/vulkan/ops/*.cpp)
set_source_files_properties(${TESSERA_VK_SOURCES} PROPERTIES COMPILE_OPTIONS -Wno-missing-field-initializers)
add_library(tessera_volk OBJECT ${TESSERA_VOLK_DIR}/volk.c)
target_compile_definitions(tessera_volk PRIVATE VK_NO_PROTOTYPES)
set_target_properties(tessera_volk PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_sources(tessera PRIVATE ${TESSERA_VK_SOURCES} ${TESSERA_VK_GEN}/VulkanShaders.cpp
  $<TARGET_OBJECTS:tessera_volk>)
target_compile_definitions(tessera PRIVATE VK_NO_PROTOTYPES)
target_link_libraries(tessera PRIVATE ${CMAKE_DL_LIBS} glslang::glslang glslang::SPIRV
  glslang::glslang-default-resource-limits)
add_custom_target(tessera_vulkan_enabled)
