#include "backends/cpu/Fft.hpp"

#include <cmath>

namespace tessera {

namespace {

constexpr double kPi = 3.14159265358979323846;

bool isPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

template <typename T>
std::complex<T> unitRoot(double angle) {
  return {static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle))};
}

}  // namespace

template <typename T>
void FftPlan<T>::plan(int64_t n, bool inverse) {
  n_ = n;
  const double sign = inverse ? 1.0 : -1.0;
  if (isPowerOfTwo(n)) {
    kind_ = Kind::kRadix2;
    m_ = n;
    scratch_ = 0;
  } else if (n < kDirectBelow) {
    kind_ = Kind::kDirect;
    m_ = 0;
    scratch_ = 0;
    // x[j] meets exp(sign*2*pi*i*j*k/n) = twiddles_[(j*k) mod n].
    twiddles_.resize(n);
    for (int64_t k = 0; k < n; ++k) twiddles_[k] = unitRoot<T>(sign * 2 * kPi * k / n);
    return;
  } else {
    kind_ = Kind::kBluestein;
    m_ = 1;
    while (m_ < 2 * n - 1) m_ *= 2;
    scratch_ = 2 * m_;
  }
  // Radix-2 tables of length m_ (always forward; Bluestein's inverse uses conjugation).
  const double radixSign = kind_ == Kind::kRadix2 ? sign : -1.0;
  twiddles_.resize(m_ / 2);
  for (int64_t k = 0; k < m_ / 2; ++k) twiddles_[k] = unitRoot<T>(radixSign * 2 * kPi * k / m_);
  bitReverse_.assign(m_, 0);
  int bits = 0;
  while ((int64_t{1} << bits) < m_) ++bits;
  for (int64_t i = 0; i < m_; ++i) {
    int64_t r = 0;
    for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
    bitReverse_[i] = r;
  }
  if (kind_ != Kind::kBluestein) return;
  // jk = (j^2 + k^2 - (k-j)^2) / 2, so the DFT is chirp[k] * sum_j (x[j]*chirp[j]) *
  // conj(chirp[k-j]): a convolution. k^2 mod 2n keeps the angle exact for large k.
  chirp_.resize(n);
  for (int64_t k = 0; k < n; ++k) chirp_[k] = unitRoot<T>(sign * kPi * static_cast<double>((k * k) % (2 * n)) / n);
  std::vector<Complex> kernel(m_, Complex(0, 0));
  kernel[0] = std::conj(chirp_[0]);
  for (int64_t k = 1; k < n; ++k) kernel[k] = kernel[m_ - k] = std::conj(chirp_[k]);
  kernelFft_.resize(m_);
  radix2(kernel.data(), kernelFft_.data());
  for (Complex& v : kernelFft_) v /= static_cast<T>(m_);
}

template <typename T>
void FftPlan<T>::radix2(const Complex* x, Complex* y) const {
  const int64_t m = m_;
  for (int64_t i = 0; i < m; ++i) y[bitReverse_[i]] = x[i];
  for (int64_t len = 2; len <= m; len *= 2) {
    const int64_t half = len / 2, step = m / len;
    for (int64_t start = 0; start < m; start += len) {
      for (int64_t j = 0; j < half; ++j) {
        const Complex u = y[start + j];
        const Complex v = y[start + j + half] * twiddles_[j * step];
        y[start + j] = u + v;
        y[start + j + half] = u - v;
      }
    }
  }
}

template <typename T>
void FftPlan<T>::run(const Complex* x, Complex* y, Complex* scratch) const {
  if (kind_ == Kind::kRadix2) {
    radix2(x, y);
  } else if (kind_ == Kind::kDirect) {
    for (int64_t k = 0; k < n_; ++k) {
      Complex sum(0, 0);
      int64_t t = 0;  // j*k mod n, stepped by k
      for (int64_t j = 0; j < n_; ++j) {
        sum += x[j] * twiddles_[t];
        t += k;
        if (t >= n_) t -= n_;
      }
      y[k] = sum;
    }
  } else {
    Complex* a = scratch;
    Complex* b = scratch + m_;
    for (int64_t k = 0; k < n_; ++k) a[k] = x[k] * chirp_[k];
    for (int64_t k = n_; k < m_; ++k) a[k] = Complex(0, 0);
    radix2(a, b);
    // The inverse FFT of the product, as conj(FFT(conj(.))); kernelFft_ carries the 1/m.
    for (int64_t k = 0; k < m_; ++k) b[k] = std::conj(b[k] * kernelFft_[k]);
    radix2(b, a);
    for (int64_t k = 0; k < n_; ++k) y[k] = chirp_[k] * std::conj(a[k]);
  }
}

template class FftPlan<float>;
template class FftPlan<double>;

}  // namespace tessera
