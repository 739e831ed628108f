// Which vector instruction set the CPU kernels use, chosen once per process at run time:
// the widest the CPU supports (cpuid), or the one TESSERA_CPU_ISA=avx512|avx2|generic names
// (for tests of every path on one machine, and for fleets of mixed CPUs). A named set the CPU
// lacks falls back to the widest one below it that it has, with a warning.
#pragma once

namespace tessera {

enum class CpuIsa { kGeneric = 0, kAvx2 = 1, kAvx512 = 2 };

CpuIsa cpuIsa();
const char* cpuIsaName(CpuIsa isa);  // "generic", "avx2" (AVX2+FMA), "avx512" (AVX-512 F/BW/VL/DQ)

}  // namespace tessera
