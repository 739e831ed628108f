// OpenCL DFT against the CPU (whose FFT tests/ops/Dft.cpp checks against the definition):
// real and complex signals of odd, prime and unit lengths, batch > 1, every signal axis
// (negative ones included), forward and inverse, onesided, dft_length shorter and longer
// than the signal and fed at run time (the Session specializes it), opset 20's axis input;
// plain f32 buffers.
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

// fp32 sums of L terms: the CPU's FFT and the GPU's direct sum round differently.
double atolFor(int64_t L) { return 3e-6 * static_cast<double>(L + 1); }

Attributes dftAttrs(int64_t axis, bool inverse, bool onesided) {
  Attributes a;
  a.setInt("axis", axis);
  a.setInt("inverse", inverse);
  a.setInt("onesided", onesided);
  return a;
}

TEST(OpenClDft, EveryAxisInverseOnesided) {
  REQUIRE_OPENCL();
  uint32_t seed = 700;
  for (const Shape& s : {Shape{2, 7, 3, 1}, Shape{3, 5, 13, 2}, Shape{1, 1, 1}, Shape{1, 13, 2}, Shape{2, 2, 1, 3, 1}}) {
    const int64_t rank = static_cast<int64_t>(s.size());
    const Tensor x = randomTensor(s, seed++);
    for (int64_t axis = 1; axis <= rank - 2; ++axis)
      for (int64_t a : {axis, axis - rank})
        for (bool inverse : {false, true})
          for (bool onesided : {false, true}) {
            SCOPED_TRACE(shapeToString(s) + " axis " + std::to_string(a) + (inverse ? " inverse" : "") +
                         (onesided ? " onesided" : ""));
            expectOpenClMatchesCpu("DFT", {x}, dftAttrs(a, inverse, onesided), "DFT", {}, 1, 17, 1e-4, atolFor(s[axis]));
          }
  }
}

TEST(OpenClDft, DftLengthPadsAndTruncates) {
  REQUIRE_OPENCL();
  uint32_t seed = 720;
  const Shape s = {2, 9, 4, 2};
  for (int64_t L : {1, 4, 8, 9, 13, 32})
    for (bool constant : {false, true})
      for (bool inverse : {false, true})
        for (bool onesided : {false, true}) {
          SCOPED_TRACE("L " + std::to_string(L) + (constant ? " constant" : " run time") + (inverse ? " inverse" : "") +
                       (onesided ? " onesided" : ""));
          expectOpenClMatchesCpu("DFT", {randomTensor(s, seed++), tensorFromInts({}, {L})},
                                 dftAttrs(1, inverse, onesided), "DFT", {false, constant}, 1, 17, 1e-4, atolFor(L));
        }
}

TEST(OpenClDft, Opset20AxisInput) {
  REQUIRE_OPENCL();
  const Shape s = {2, 5, 7, 1};
  for (int64_t axis : {1, 2, -2, -3})
    for (bool onesided : {false, true}) {
      SCOPED_TRACE("axis " + std::to_string(axis));
      Attributes a;
      a.setInt("onesided", onesided);
      expectOpenClMatchesCpu("DFT", {randomTensor(s, 740), tensorFromInts({}, {11}), tensorFromInts({}, {axis})}, a,
                             "DFT", {}, 1, 20, 1e-4, atolFor(11));
    }
}

}  // namespace
}  // namespace test
}  // namespace tessera
