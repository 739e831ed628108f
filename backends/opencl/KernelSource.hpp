// A built-in OpenCL program's source, embedded by tools/codegen/opencl_kernels.py. Each
// program's identifiers (programs::conv, kernels::conv::conv2d, ...) are declared in its own
// generated header, "kernels/<program>.hpp": an op includes the headers of the programs it
// uses, so adding a program rebuilds only what uses it.
#pragma once
#include <cstdint>

namespace tessera {
namespace opencl {

struct ProgramSource {
  const char* name;    // the .cl file's stem
  const char* source;  // includes expanded
  uint64_t hash;       // FNV-1a of source
};

// A kernel of a program: refer to it as kernels::<program>::<kernel>.
struct KernelId {
  const ProgramSource* program;
  const char* name;
};

}  // namespace opencl
}  // namespace tessera
