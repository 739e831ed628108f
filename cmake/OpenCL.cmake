# The OpenCL backend: runtime + executions (backends/opencl), kernels (shaders/opencl/*.cl)
# embedded by tools/codegen/opencl_kernels.py. Linked through the ICD loader, so a machine
# without an OpenCL driver still loads the library (the backend then reports itself
# unavailable). Included by the top-level CMakeLists.txt when TESSERA_OPENCL is ON.
find_package(OpenCL QUIET)
if(NOT OpenCL_FOUND)
  message(STATUS "OpenCL backend: OFF (no OpenCL headers/ICD loader found: install "
                 "ocl-icd-opencl-dev and opencl-headers)")
  return()
endif()
message(STATUS "OpenCL backend: ON (${OpenCL_LIBRARIES}, headers ${OpenCL_INCLUDE_DIRS})")

# New .cl/.h files are picked up at the next build with no CMake edit.
file(GLOB TESSERA_OPENCL_KERNELS CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/shaders/opencl/*.cl)
file(GLOB TESSERA_OPENCL_KERNEL_HEADERS CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/shaders/opencl/*.h)
file(GLOB TESSERA_OPENCL_SOURCES CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/backends/opencl/*.cpp
  ${CMAKE_SOURCE_DIR}/backends/opencl/ops/*.cpp)

set(TESSERA_OPENCL_GEN_DIR ${TESSERA_GEN_DIR}/opencl)
set(TESSERA_OPENCL_CODEGEN ${CMAKE_SOURCE_DIR}/tools/codegen/opencl_kernels.py)
# One generated header per program (kernels/<program>.hpp) and one .cpp with every source;
# the generator rewrites a file only when its content changes, and Ninja re-checks outputs
# after a custom command (restat), so adding a program rebuilds only the C++ that uses it.
set(TESSERA_OPENCL_GEN_HEADERS ${TESSERA_OPENCL_GEN_DIR}/kernels/headers.hpp)
foreach(cl ${TESSERA_OPENCL_KERNELS})
  get_filename_component(stem ${cl} NAME_WE)
  list(APPEND TESSERA_OPENCL_GEN_HEADERS ${TESSERA_OPENCL_GEN_DIR}/kernels/${stem}.hpp)
endforeach()
add_custom_command(
  OUTPUT ${TESSERA_OPENCL_GEN_HEADERS} ${TESSERA_OPENCL_GEN_DIR}/OpenClKernels.cpp
  COMMAND Python3::Interpreter ${TESSERA_OPENCL_CODEGEN} --out-dir ${TESSERA_OPENCL_GEN_DIR}
          ${TESSERA_OPENCL_KERNELS} ${TESSERA_OPENCL_KERNEL_HEADERS}
  DEPENDS ${TESSERA_OPENCL_CODEGEN} ${CMAKE_SOURCE_DIR}/tools/codegen/generated_file.py
          ${TESSERA_OPENCL_KERNELS} ${TESSERA_OPENCL_KERNEL_HEADERS}
  COMMENT "Embedding OpenCL kernels (shaders/opencl/*.cl)"
  VERBATIM)

target_sources(tessera PRIVATE ${TESSERA_OPENCL_SOURCES}
  ${TESSERA_OPENCL_GEN_DIR}/OpenClKernels.cpp)
target_include_directories(tessera PRIVATE ${TESSERA_OPENCL_GEN_DIR})
target_compile_definitions(tessera PRIVATE CL_TARGET_OPENCL_VERSION=120
  CL_USE_DEPRECATED_OPENCL_1_2_APIS)
target_link_libraries(tessera PRIVATE OpenCL::OpenCL)

add_custom_target(tessera_opencl_enabled)
