// CPU Softmax / LogSoftmax over [outer, n, inner], numerically stable (the row maximum is
// subtracted before exp). When inner > 1 the n values of one softmax are `inner` apart, so
// lanes of up to 64 neighbouring softmaxes are processed together: every pass then reads
// contiguous memory, with per-lane state on the stack.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/VectorMath.hpp"
#include "ops/Softmax.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

constexpr int64_t kLanes = 64;

template <typename T>
void softmaxRow(const T* x, T* y, int64_t n, bool log) {
  T maxv = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < n; ++i) maxv = std::max(maxv, x[i]);
  T sum = 0;
  if (log) {
    for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i] - maxv);
    const T shift = maxv + std::log(sum);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      y[i] = std::exp(x[i] - maxv);
      sum += y[i];
    }
    const T scale = T(1) / sum;
    for (int64_t i = 0; i < n; ++i) y[i] *= scale;
  }
}

// f32 rows: three passes through VectorMath (the maximum; the exponentials and their sum; the
// scale), each in the widest vectors the CPU has. BERT's 12 x 128 rows of 128, 2 threads:
// 0.114 -> 0.058 ms (this file's own 128-bit passes around a vectorExp call had taken twice the
// exponentials' time; a 6625-class recogniser head had spent 0.5 ms in libm before that).
void softmaxRow(const float* x, float* y, int64_t n, bool log) {
  const float maxv = vectorMax(x, n);
  if (log) {  // the exponentials only for their sum, in chunks on the stack
    float e[256], sum = 0.f;
    for (int64_t i = 0; i < n; i += 256) sum += vectorExpShiftedSum(x + i, e, std::min<int64_t>(256, n - i), maxv);
    const float shift = maxv + std::log(sum);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
    return;
  }
  vectorScale(y, n, 1.f / vectorExpShiftedSum(x, y, n, maxv));
}

// Rows shorter than kShortRow go kShortChunk floats at a time: the exp of a whole chunk of
// rows in one vectorExp call, the rest row by row. Row by row, a face detector's 4420
// two-class softmaxes took 0.2 ms, most of it in vectorExp's per-call setup and tail.
constexpr int64_t kShortRow = 64;
constexpr int64_t kShortChunk = 512;

template <typename T>
void softmaxShortRows(const T* x, T* y, int64_t rows, int64_t n, bool log) {
  for (int64_t r = 0; r < rows; ++r) softmaxRow(x + r * n, y + r * n, n, log);
}

void softmaxShortRows(const float* x, float* y, int64_t rows, int64_t n, bool log) {
  float e[kShortChunk];
  const int64_t perChunk = std::max<int64_t>(1, kShortChunk / n);
  for (int64_t r0 = 0; r0 < rows; r0 += perChunk) {
    const int64_t count = std::min(perChunk, rows - r0);
    const float* xc = x + r0 * n;
    float* yc = y + r0 * n;
    for (int64_t r = 0; r < count; ++r) {  // inline: a vectorMax call a row had cost 25 ns
      const float* xr = xc + r * n;
      float maxv = xr[0];
      for (int64_t i = 1; i < n; ++i) maxv = std::max(maxv, xr[i]);
      for (int64_t i = 0; i < n; ++i) yc[r * n + i] = xr[i] - maxv;
    }
    vectorExp(yc, e, count * n);
    for (int64_t r = 0; r < count; ++r) {
      float sum = 0.f;
      for (int64_t i = 0; i < n; ++i) sum += e[r * n + i];
      if (log) {
        const float shift = std::log(sum);
        for (int64_t i = 0; i < n; ++i) yc[r * n + i] -= shift;
      } else {
        const float scale = 1.f / sum;
        for (int64_t i = 0; i < n; ++i) yc[r * n + i] = e[r * n + i] * scale;
      }
    }
  }
}

// `lanes` softmaxes side by side: element j of lane l is at x[j * stride + l].
template <typename T>
void softmaxLanes(const T* x, T* y, int64_t n, int64_t stride, int64_t lanes, bool log) {
  T maxv[kLanes], sum[kLanes];
  for (int64_t l = 0; l < lanes; ++l) {
    maxv[l] = -std::numeric_limits<T>::infinity();
    sum[l] = 0;
  }
  for (int64_t j = 0; j < n; ++j)
    for (int64_t l = 0; l < lanes; ++l) maxv[l] = std::max(maxv[l], x[j * stride + l]);
  if (log) {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t l = 0; l < lanes; ++l) sum[l] += std::exp(x[j * stride + l] - maxv[l]);
    for (int64_t l = 0; l < lanes; ++l) maxv[l] += std::log(sum[l]);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t l = 0; l < lanes; ++l) y[j * stride + l] = x[j * stride + l] - maxv[l];
  } else {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t l = 0; l < lanes; ++l) {
        const T e = std::exp(x[j * stride + l] - maxv[l]);
        y[j * stride + l] = e;
        sum[l] += e;
      }
    for (int64_t l = 0; l < lanes; ++l) sum[l] = T(1) / sum[l];
    for (int64_t j = 0; j < n; ++j)
      for (int64_t l = 0; l < lanes; ++l) y[j * stride + l] *= sum[l];
  }
}

class CpuSoftmax final : public Execution {
 public:
  CpuSoftmax(Backend* b, const Node& node, const SoftmaxParams& p)
      : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    return params_.split3(node_, inputs[0]->shape(), &outer_, &n_, &inner_);
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (inputs[0]->elementCount() == 0) return Status::ok();
    if (inputs[0]->dtype() == DataType::kF64)
      run(inputs[0]->data<double>(), outputs[0]->data<double>());
    else
      run(inputs[0]->data<float>(), outputs[0]->data<float>());
    return Status::ok();
  }

 private:
  template <typename T>
  void run(const T* x, T* y) {
    const int64_t n = n_, inner = inner_;
    const bool log = params_.log;
    if (inner == 1 && n < kShortRow) {  // many short rows: chunks of them
      const int64_t perTask = std::max<int64_t>(1, kShortChunk / n);
      const int64_t tasks = (outer_ + perTask - 1) / perTask;
      cpuPool(*this).parallelFor(tasks, [&](int64_t begin, int64_t end) {
        const int64_t r0 = begin * perTask, r1 = std::min(outer_, end * perTask);
        softmaxShortRows(x + r0 * n, y + r0 * n, r1 - r0, n, log);
      }, std::max<int64_t>(1, 16384 / kShortChunk));
      return;
    }
    const int64_t blocks = (inner + kLanes - 1) / kLanes;
    const int64_t work = n * std::min(inner, kLanes);
    const int64_t minTasks = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, work));
    cpuPool(*this).parallelFor(outer_ * blocks, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t o = t / blocks, lane0 = (t % blocks) * kLanes;
        const int64_t base = o * n * inner + lane0;
        if (inner == 1)
          softmaxRow(x + base, y + base, n, log);
        else
          softmaxLanes(x + base, y + base, n, inner, std::min(kLanes, inner - lane0), log);
      }
    }, minTasks);
  }

  Node node_;
  SoftmaxParams params_;
  int64_t outer_ = 1, n_ = 1, inner_ = 1;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  SoftmaxParams p;
  if (!SoftmaxParams::parse(node, &p).isOk()) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (t != DataType::kF32 && t != DataType::kF64) return nullptr;
  return std::make_unique<CpuSoftmax>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Softmax, create);
TESSERA_REGISTER_EXECUTION(kCPU, LogSoftmax, create);

}  // namespace tessera
