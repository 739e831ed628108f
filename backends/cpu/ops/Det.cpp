// CPU Det on f32 and f64: each matrix is copied into a double buffer and LU-factorized with
// partial pivoting; the determinant is the product of the pivots, negated per row swap.
// Matrices are split over the threads, each with its own buffer made at resize.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

double luDeterminant(double* a, int64_t M) {
  double det = 1;
  for (int64_t k = 0; k < M; ++k) {
    int64_t pivot = k;
    for (int64_t i = k + 1; i < M; ++i)
      if (std::fabs(a[i * M + k]) > std::fabs(a[pivot * M + k])) pivot = i;
    if (a[pivot * M + k] == 0) return 0;  // singular: a zero column below the diagonal
    if (pivot != k) {
      std::swap_ranges(a + k * M, a + (k + 1) * M, a + pivot * M);
      det = -det;
    }
    const double d = a[k * M + k];
    det *= d;
    for (int64_t i = k + 1; i < M; ++i) {
      const double f = a[i * M + k] / d;
      for (int64_t j = k + 1; j < M; ++j) a[i * M + j] -= f * a[k * M + j];
    }
  }
  return det;
}

template <typename T>
class CpuDet final : public Execution {
 public:
  using Execution::Execution;

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    M_ = inputs[0]->dim(-1);
    count_ = outputs[0]->elementCount();
    tasks_ = std::max<int64_t>(1, std::min<int64_t>(cpuPool(*this).threads(), count_));
    scratch_.assign(static_cast<size_t>(tasks_ * M_ * M_), 0.0);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const T* x = inputs[0]->data<T>();
    T* y = outputs[0]->data<T>();
    const int64_t size = M_ * M_;
    cpuPool(*this).parallelFor(tasks_, [&](int64_t tBegin, int64_t tEnd) {
      for (int64_t t = tBegin; t < tEnd; ++t) {
        double* a = scratch_.data() + t * size;
        for (int64_t b = count_ * t / tasks_; b < count_ * (t + 1) / tasks_; ++b) {
          std::copy(x + b * size, x + (b + 1) * size, a);
          y[b] = static_cast<T>(luDeterminant(a, M_));
        }
      }
    }, 1);
    return Status::ok();
  }

 private:
  int64_t M_ = 0, count_ = 0, tasks_ = 1;
  std::vector<double> scratch_;  // one M x M matrix per task
};

std::unique_ptr<Execution> create(Backend* b, const Node&, const Tensors& inputs, const Tensors&) {
  if (inputs.empty() || !inputs[0]) return nullptr;
  if (inputs[0]->dtype() == DataType::kF32) return std::make_unique<CpuDet<float>>(b);
  if (inputs[0]->dtype() == DataType::kF64) return std::make_unique<CpuDet<double>>(b);
  return nullptr;
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Det, create);

}  // namespace tessera
