// c += a * b on AVX2 with the sum kept in c's register (vfmadd231ps). With the plain
// intrinsic, GCC 12 often picks the form that overwrites a multiplicand (vfmadd132ps) in
// unrolled kernels with many accumulators, then moves sums between registers and spills
// some to the stack every step: a store-to-load round trip in the sum's dependency chain.
// The AVX2 GEMM's 6 x 16 kernel ran at about half the FMA rate that way (Zen 3).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace tessera {

__attribute__((target("avx2,fma"), always_inline)) inline void fmaAvx2(__m256& c, __m256 a, __m256 b) {
  __asm__("vfmadd231ps %2, %1, %0" : "+x"(c) : "x"(a), "x"(b));
}

}  // namespace tessera
#endif
