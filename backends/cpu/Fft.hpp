// A complex FFT of one fixed length, planned once (at resize) and run many times, for DFT
// and STFT. Unnormalized: y[k] = sum_j x[j] * exp(sign * 2*pi*i * j*k / n), sign -1 forward
// and +1 inverse (the caller divides by n for the inverse).
//
// Algorithm by length: a power of two runs an iterative radix-2 FFT; any other length below
// kDirectBelow runs the plain O(n^2) sum over a table of the n twiddles; longer ones run
// Bluestein's chirp-z transform, a cyclic convolution done with radix-2 FFTs of a
// power-of-two length m >= 2n - 1. Twiddles and chirps are computed in double and stored
// in T. The threshold is measured (f32, one x86 core): the direct sum takes about 1.4*n^2
// ns, Bluestein about 430 ns for n in 9..16 and 1000 ns for n in 17..32, so they cross
// near n = 26.
#pragma once
#include <complex>
#include <cstdint>
#include <vector>

namespace tessera {

template <typename T>
class FftPlan {
 public:
  using Complex = std::complex<T>;
  static constexpr int64_t kDirectBelow = 26;

  // Allocates and fills every table; n >= 1.
  void plan(int64_t n, bool inverse);
  int64_t length() const { return n_; }
  // Complex values of scratch one concurrent run() needs.
  int64_t scratchSize() const { return scratch_; }
  // y = transform of x (both n values, not overlapping); allocates nothing.
  void run(const Complex* x, Complex* y, Complex* scratch) const;

 private:
  enum class Kind { kRadix2, kDirect, kBluestein };
  void radix2(const Complex* x, Complex* y) const;

  int64_t n_ = 0, m_ = 0, scratch_ = 0;
  Kind kind_ = Kind::kRadix2;
  std::vector<Complex> twiddles_;    // radix-2 (length m_/2) or direct (length n_)
  std::vector<int64_t> bitReverse_;  // radix-2 input order, length m_
  std::vector<Complex> chirp_;       // Bluestein: exp(sign*pi*i*k^2/n), length n_
  std::vector<Complex> kernelFft_;   // Bluestein: FFT of the conjugate chirp, divided by m_
};

extern template class FftPlan<float>;
extern template class FftPlan<double>;

}  // namespace tessera
