#include "backends/cpu/CpuIsa.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "tessera/Log.hpp"

namespace tessera {
namespace {

CpuIsa widestSupported() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("fma"))
    return CpuIsa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuIsa::kAvx2;
#endif
  return CpuIsa::kGeneric;
}

CpuIsa choose() {
  const CpuIsa best = widestSupported();
  const char* env = std::getenv("TESSERA_CPU_ISA");
  if (!env || !*env) return best;
  CpuIsa wanted;
  if (std::strcmp(env, "avx512") == 0) {
    wanted = CpuIsa::kAvx512;
  } else if (std::strcmp(env, "avx2") == 0) {
    wanted = CpuIsa::kAvx2;
  } else if (std::strcmp(env, "generic") == 0) {
    wanted = CpuIsa::kGeneric;
  } else {
    logMessage(LogLevel::kWarning, std::string("TESSERA_CPU_ISA='") + env +
                                       "' is not one of avx512, avx2, generic; using " + cpuIsaName(best));
    return best;
  }
  if (static_cast<int>(wanted) > static_cast<int>(best)) {
    logMessage(LogLevel::kWarning, std::string("TESSERA_CPU_ISA=") + env + ": this CPU lacks it; using " +
                                       cpuIsaName(best));
    return best;
  }
  return wanted;
}

}  // namespace

CpuIsa cpuIsa() {
  static const CpuIsa isa = choose();
  return isa;
}

const char* cpuIsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx512: return "avx512";
    case CpuIsa::kAvx2: return "avx2";
    case CpuIsa::kGeneric: break;
  }
  return "generic";
}

}  // namespace tessera
