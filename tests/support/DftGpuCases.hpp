// DFT cases shared by the GPU backends' tests (tests/{vulkan,opencl}/*Dft.cpp), each against
// the CPU (whose FFT tests/ops/Dft.cpp checks against the definition): real and complex
// signals of odd, prime and unit lengths, batch > 1, every signal axis (negative ones
// included), forward and inverse, onesided, dft_length shorter and longer than the signal
// and fed at run time (the Session specializes it), opset 20's axis input.
#pragma once
#include "support/GpuMatchesCpu.hpp"

namespace tessera {
namespace test {

// fp32 sums of L terms: the CPU's FFT and the GPU's direct sum round differently.
inline double dftAtolFor(int64_t L) { return 3e-6 * static_cast<double>(L + 1); }

inline Attributes dftAttrs(int64_t axis, bool inverse, bool onesided) {
  Attributes a;
  a.setInt("axis", axis);
  a.setInt("inverse", inverse);
  a.setInt("onesided", onesided);
  return a;
}

inline void dftEveryAxisInverseOnesided(BackendType gpu) {
  uint32_t seed = 700;
  for (const Shape& s : {Shape{2, 7, 3, 1}, Shape{3, 5, 13, 2}, Shape{1, 1, 1}, Shape{1, 13, 2}, Shape{2, 2, 1, 3, 1}}) {
    const int64_t rank = static_cast<int64_t>(s.size());
    const Tensor x = randomTensor(s, seed++);
    for (int64_t axis = 1; axis <= rank - 2; ++axis)
      for (int64_t a : {axis, axis - rank})
        for (bool inverse : {false, true})
          for (bool onesided : {false, true})
            expectGpuMatchesCpu(gpu, "DFT", {x}, dftAttrs(a, inverse, onesided), 1, {}, 17, 1e-4, dftAtolFor(s[axis]),
                                shapeToString(s) + " axis " + std::to_string(a) + (inverse ? " inverse" : "") +
                                    (onesided ? " onesided" : ""));
  }
}

inline void dftLengthPadsAndTruncates(BackendType gpu) {
  uint32_t seed = 720;
  const Shape s = {2, 9, 4, 2};
  for (int64_t L : {1, 4, 8, 9, 13, 32})
    for (bool constant : {false, true})
      for (bool inverse : {false, true})
        for (bool onesided : {false, true})
          expectGpuMatchesCpu(gpu, "DFT", {randomTensor(s, seed++), tensorFromInts({}, {L})},
                              dftAttrs(1, inverse, onesided), 1, {false, constant}, 17, 1e-4, dftAtolFor(L),
                              "L " + std::to_string(L) + (constant ? " constant" : " run time") +
                                  (inverse ? " inverse" : "") + (onesided ? " onesided" : ""));
}

inline void dftOpset20AxisInput(BackendType gpu) {
  const Shape s = {2, 5, 7, 1};
  for (int64_t axis : {1, 2, -2, -3})
    for (bool onesided : {false, true}) {
      Attributes a;
      a.setInt("onesided", onesided);
      expectGpuMatchesCpu(gpu, "DFT", {randomTensor(s, 740), tensorFromInts({}, {11}), tensorFromInts({}, {axis})}, a,
                          1, {}, 20, 1e-4, dftAtolFor(11), "axis " + std::to_string(axis));
    }
}

}  // namespace test
}  // namespace tessera
