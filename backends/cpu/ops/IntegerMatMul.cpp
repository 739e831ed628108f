// CPU MatMulInteger and QLinearMatMul (semantics: ops/IntegerMatMul.hpp). Every distinct B
// matrix of the batch is widened once to int16 with its zero points subtracted (at resize
// when B and b_zero_point are constant); each output row is then accumulated exactly in
// int32 (uint32 arithmetic: a wrap-around of huge sums stays defined), straight into Y for
// MatMulInteger, into a per-worker row for QLinearMatMul, which requantizes it. Rows are
// split over the pool.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/IntegerMatMul.hpp"
#include "ops/Quantize.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// acc[n] += sum_k (a[k] - aZero) * b[k][n] for n < N, b the widened B (K x N).
template <typename A>
void accumulateRow(const A* a, int32_t aZero, const int16_t* b, int64_t K, int64_t N, uint32_t* acc) {
  std::fill(acc, acc + N, 0u);
  for (int64_t k = 0; k < K; ++k) {
    const int32_t av = static_cast<int32_t>(a[k]) - aZero;
    if (av == 0) continue;
    const int16_t* bk = b + k * N;
    for (int64_t n = 0; n < N; ++n) acc[n] += static_cast<uint32_t>(av * static_cast<int32_t>(bk[n]));
  }
}

class CpuIntegerMatMul final : public Execution {
 public:
  CpuIntegerMatMul(Backend* b, bool qlinear) : Execution(b), qlinear_(qlinear), ix_(IntegerMatMulInputs::of(qlinear)) {}

  void selectDataTypes(const std::vector<DataType>&, const Tensors&, std::vector<DataType>* in,
                       std::vector<DataType>*) const override {
    for (int i : {ix_.aScale, ix_.bScale, ix_.yScale})
      if (i >= 0 && (*in)[i] != DataType::kUnknown) (*in)[i] = DataType::kF32;
  }

  Status onResize(const Tensors& inputs, const Tensors&) override {
    TESSERA_RETURN_IF_ERROR(resolveIntegerMatMul(std::vector<const Tensor*>(inputs.begin(), inputs.end()), qlinear_, &plan_));
    const MatMulShape& s = plan_.shape;
    const size_t rank = s.batch.size();
    batches_ = elementCount(s.batch);
    bBatches_ = elementCount(s.bBatch);
    // Which A and B matrix feed output matrix i (batch dimensions broadcast).
    aIndex_.assign(batches_, 0);
    bIndex_.assign(batches_, 0);
    for (int64_t i = 0; i < batches_; ++i) {
      int64_t rest = i, aStride = 1, bStride = 1;
      for (size_t d = rank; d-- > 0;) {
        const int64_t idx = rest % s.batch[d];
        rest /= s.batch[d];
        const size_t fromEnd = rank - 1 - d;
        if (fromEnd < s.aBatch.size()) {
          const int64_t extent = s.aBatch[s.aBatch.size() - 1 - fromEnd];
          if (extent != 1) aIndex_[i] += idx * aStride;
          aStride *= extent;
        }
        if (fromEnd < s.bBatch.size()) {
          const int64_t extent = s.bBatch[s.bBatch.size() - 1 - fromEnd];
          if (extent != 1) bIndex_[i] += idx * bStride;
          bStride *= extent;
        }
      }
    }
    widenedB_.assign(bBatches_ * s.K * s.N, 0);
    const Tensor* b = inputs[ix_.b];
    const Tensor* bZero = presentInput(inputs, ix_.bZero);
    bWidened_ = b->isConstant() && (!bZero || bZero->isConstant());
    if (bWidened_) widenB(*b, bZero);
    const int threads = cpuPool(*this).threads();
    workers_ = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, batches_ * s.M)));
    rows_.assign(qlinear_ ? workers_ * s.N : 0, 0u);
    return Status::ok();
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    return matMulWork(inputs, outputs, plan_.shape.K);
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (!bWidened_) widenB(*inputs[ix_.b], presentInput(inputs, ix_.bZero));
    const Tensor& a = *inputs[ix_.a];
    if (a.dtype() == DataType::kI8) return run(a.data<int8_t>(), inputs, outputs);
    return run(a.data<uint8_t>(), inputs, outputs);
  }

 private:
  // widenedB_[j][k][n] = B_j[k][n] - b_zero_point(j, n).
  void widenB(const Tensor& b, const Tensor* bZero) {
    const MatMulShape& s = plan_.shape;
    cpuPool(*this).parallelFor(bBatches_ * s.K, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t j = row / s.K;
        int16_t* dst = widenedB_.data() + row * s.N;
        for (int64_t n = 0; n < s.N; ++n) {
          const int32_t v = integerAt(&b, row * s.N + n) - integerAt(bZero, plan_.bZero.at(j, n));
          dst[n] = static_cast<int16_t>(v);
        }
      }
    }, 64);
  }

  template <typename A>
  Status run(const A* a, const Tensors& inputs, const Tensors& outputs) {
    const MatMulShape& s = plan_.shape;
    const Tensor* aZero = presentInput(inputs, ix_.aZero);
    const int64_t tasks = batches_ * s.M;
    const int workers = workers_;
    cpuPool(*this).parallelFor(workers, [&](int64_t begin, int64_t end) {
      for (int64_t w = begin; w < end; ++w) {
        for (int64_t t = w; t < tasks; t += workers) {
          const int64_t i = t / s.M, m = t % s.M;
          const int32_t az = integerAt(aZero, plan_.aZero.at(aIndex_[i], m));
          const A* aRow = a + (aIndex_[i] * s.M + m) * s.K;
          const int16_t* b = widenedB_.data() + bIndex_[i] * s.K * s.N;
          if (!qlinear_) {
            accumulateRow(aRow, az, b, s.K, s.N, reinterpret_cast<uint32_t*>(outputs[0]->data<int32_t>() + t * s.N));
            continue;
          }
          uint32_t* acc = rows_.data() + w * s.N;
          accumulateRow(aRow, az, b, s.K, s.N, acc);
          if (outputs[0]->dtype() == DataType::kI8) requantizeRow(inputs, i, m, acc, outputs[0]->data<int8_t>() + t * s.N);
          else requantizeRow(inputs, i, m, acc, outputs[0]->data<uint8_t>() + t * s.N);
        }
      }
    }, 1);
    return Status::ok();
  }

  template <typename Q>
  void requantizeRow(const Tensors& inputs, int64_t i, int64_t m, const uint32_t* acc, Q* y) const {
    const float* aScale = inputs[ix_.aScale]->data<float>();
    const float* bScale = inputs[ix_.bScale]->data<float>();
    const float* yScale = inputs[ix_.yScale]->data<float>();
    const float as = aScale[plan_.aScale.at(aIndex_[i], m)];
    const float ys = yScale[plan_.yScale.at(i, m)];
    const int32_t yz = integerAt(inputs[ix_.yZero], plan_.yZero.at(i, m));
    const int64_t bMatrix = bIndex_[i];
    for (int64_t n = 0; n < plan_.shape.N; ++n) {
      const float multiplier = as * bScale[plan_.bScale.at(bMatrix, n)] / ys;
      y[n] = requantize<Q>(static_cast<int32_t>(acc[n]), multiplier, yz);
    }
  }

  bool qlinear_;
  IntegerMatMulInputs ix_;
  IntegerMatMulPlan plan_;
  int64_t batches_ = 1, bBatches_ = 1;
  int workers_ = 1;
  bool bWidened_ = false;
  std::vector<int64_t> aIndex_, bIndex_;
  std::vector<int16_t> widenedB_;
  std::vector<uint32_t> rows_;  // QLinearMatMul: one accumulator row per worker
};

template <bool QLinear>
std::unique_ptr<Execution> create(Backend* b, const Node&, const Tensors& inputs, const Tensors&) {
  IntegerMatMulPlan plan;
  if (!resolveIntegerMatMul(std::vector<const Tensor*>(inputs.begin(), inputs.end()), QLinear, &plan).isOk())
    return nullptr;
  return std::make_unique<CpuIntegerMatMul>(b, QLinear);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, MatMulInteger, create<false>);
TESSERA_REGISTER_EXECUTION(kCPU, QLinearMatMul, create<true>);

}  // namespace tessera
