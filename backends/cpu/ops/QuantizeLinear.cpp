// CPU QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (semantics:
// ops/Quantize.hpp). x is walked as [outer, channels, inner] runs that share one scale and
// zero point, split over the pool in chunks of elements. f16/bf16 data and scales are
// converted to f32 around the step. Float x is divided in f32 (as ONNX Runtime), int32 x in
// f64 (as the ONNX reference, exact for every int32).
#include <algorithm>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/Quantize.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

constexpr int64_t kChunk = 16384;  // elements per task: cheap per element, so large chunks

// Calls fn(channel, from, to) for the runs of [begin, end) that share a channel of q.
template <typename F>
void forEachChannelRun(const QuantAxis& q, int64_t begin, int64_t end, F fn) {
  while (begin < end) {
    const int64_t block = begin / q.inner;
    const int64_t to = std::min(end, (block + 1) * q.inner);
    fn(block % q.channels, begin, to);
    begin = to;
  }
}

template <typename X, typename Q>
void quantize(ThreadPool& pool, const QuantAxis& q, const X* x, const float* scale, const Tensor* zeroPoint, Q* y,
              int64_t n) {
  using F = std::conditional_t<std::is_same_v<X, float>, float, double>;
  pool.parallelFor(n, [&](int64_t begin, int64_t end) {
    forEachChannelRun(q, begin, end, [&](int64_t c, int64_t from, int64_t to) {
      const F s = static_cast<F>(scale[c]);
      const F zp = static_cast<F>(integerAt(zeroPoint, c));
      for (int64_t i = from; i < to; ++i) y[i] = saturateTo<Q>(roundHalfToEven(static_cast<F>(x[i]) / s) + zp);
    });
  }, kChunk);
}

template <typename Q>
void dequantize(ThreadPool& pool, const QuantAxis& q, const Q* x, const float* scale, const Tensor* zeroPoint,
                float* y, int64_t n) {
  pool.parallelFor(n, [&](int64_t begin, int64_t end) {
    forEachChannelRun(q, begin, end, [&](int64_t c, int64_t from, int64_t to) {
      const float s = scale[c];
      const int64_t zp = integerAt(zeroPoint, c);
      for (int64_t i = from; i < to; ++i) y[i] = static_cast<float>(static_cast<int64_t>(x[i]) - zp) * s;
    });
  }, kChunk);
}

class CpuQuantizeLinear final : public Execution {
 public:
  CpuQuantizeLinear(Backend* b, const QuantizeLinearParams& p, bool quantize)
      : Execution(b), params_(p), quantize_(quantize) {}

  void selectDataTypes(const std::vector<DataType>&, const Tensors& inputs, std::vector<DataType>* in,
                       std::vector<DataType>* out) const override {
    (*in)[1] = DataType::kF32;
    if (quantize_ && isFloat(inputs[0]->dtype())) (*in)[0] = DataType::kF32;
    if (!quantize_) (*out)[0] = DataType::kF32;
  }

  Status onResize(const Tensors& inputs, const Tensors&) override {
    return resolveQuantAxis(inputs[0]->shape(), *inputs[1], presentInput(inputs, 2), params_.axis,
                            params_.perAxisAllowed, &axis_);
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    ThreadPool& pool = cpuPool(*this);
    const Tensor& x = *inputs[0];
    const float* scale = inputs[1]->data<float>();
    const Tensor* zp = presentInput(inputs, 2);
    const Tensor& y = *outputs[0];
    const int64_t n = x.elementCount();
    if (!quantize_) {
      float* out = y.data<float>();
      if (x.dtype() == DataType::kI8) dequantize(pool, axis_, x.data<int8_t>(), scale, zp, out, n);
      else if (x.dtype() == DataType::kU8) dequantize(pool, axis_, x.data<uint8_t>(), scale, zp, out, n);
      else dequantize(pool, axis_, x.data<int32_t>(), scale, zp, out, n);
      return Status::ok();
    }
    const bool i8 = y.dtype() == DataType::kI8;
    if (x.dtype() == DataType::kI32) {
      if (i8) quantize(pool, axis_, x.data<int32_t>(), scale, zp, y.data<int8_t>(), n);
      else quantize(pool, axis_, x.data<int32_t>(), scale, zp, y.data<uint8_t>(), n);
    } else {
      if (i8) quantize(pool, axis_, x.data<float>(), scale, zp, y.data<int8_t>(), n);
      else quantize(pool, axis_, x.data<float>(), scale, zp, y.data<uint8_t>(), n);
    }
    return Status::ok();
  }

 private:
  QuantizeLinearParams params_;
  bool quantize_;
  QuantAxis axis_;
};

// y_scale = (max(x, 0) - min(x, 0)) / 255 (1 when that range is 0, as ONNX Runtime: x all
// zeros), y_zero_point = saturate(round(-min / y_scale)), y = QuantizeLinear(x) with them.
class CpuDynamicQuantizeLinear final : public Execution {
 public:
  explicit CpuDynamicQuantizeLinear(Backend* b) : Execution(b) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    const int64_t n = inputs[0]->elementCount();
    chunks_ = std::max<int64_t>(1, std::min<int64_t>(cpuPool(*this).threads(), (n + kChunk - 1) / kChunk));
    partialMin_.assign(chunks_, 0.f);
    partialMax_.assign(chunks_, 0.f);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    ThreadPool& pool = cpuPool(*this);
    const float* x = inputs[0]->data<float>();
    const int64_t n = inputs[0]->elementCount();
    // The range starts at 0: it must include 0 anyway.
    pool.parallelFor(chunks_, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        float lo = 0.f, hi = 0.f;
        for (int64_t i = n * c / chunks_, e = n * (c + 1) / chunks_; i < e; ++i) {
          lo = std::min(lo, x[i]);
          hi = std::max(hi, x[i]);
        }
        partialMin_[c] = lo;
        partialMax_[c] = hi;
      }
    }, 1);
    const float lo = *std::min_element(partialMin_.begin(), partialMin_.end());
    const float hi = *std::max_element(partialMax_.begin(), partialMax_.end());
    const float scale = hi == lo ? 1.f : (hi - lo) / 255.f;
    const uint8_t zeroPoint = saturateTo<uint8_t>(roundHalfToEven((0.f - lo) / scale));
    if (outputs.size() > 1 && outputs[1]) outputs[1]->data<float>()[0] = scale;
    if (outputs.size() > 2 && outputs[2]) outputs[2]->data<uint8_t>()[0] = zeroPoint;
    uint8_t* y = outputs[0]->data<uint8_t>();
    const float zp = zeroPoint;
    pool.parallelFor(n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = saturateTo<uint8_t>(roundHalfToEven(x[i] / scale) + zp);
    }, kChunk);
    return Status::ok();
  }

 private:
  int64_t chunks_ = 1;
  std::vector<float> partialMin_, partialMax_;
};

bool floatLike(const Tensor* t) {
  return t && (t->dtype() == DataType::kF32 || t->dtype() == DataType::kF16 || t->dtype() == DataType::kBF16);
}

template <bool Quantize>
std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  QuantizeLinearParams p;
  if (!QuantizeLinearParams::parse(node, &p).isOk() || inputs.size() < 2 || !inputs[0] || !floatLike(inputs[1]))
    return nullptr;
  const Tensor* zp = presentInput(inputs, 2);
  if (zp && zp->dtype() != (Quantize ? outputs[0]->dtype() : inputs[0]->dtype())) return nullptr;
  if (Quantize) {
    if (!floatLike(inputs[0]) && inputs[0]->dtype() != DataType::kI32) return nullptr;
    if (!isQuantized8(outputs[0]->dtype())) return nullptr;
  } else {
    if (!isQuantized8(inputs[0]->dtype()) && inputs[0]->dtype() != DataType::kI32) return nullptr;
    if (!floatLike(outputs[0])) return nullptr;
  }
  return std::make_unique<CpuQuantizeLinear>(b, p, Quantize);
}

std::unique_ptr<Execution> createDynamic(Backend* b, const Node&, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.empty() || !inputs[0] || inputs[0]->dtype() != DataType::kF32 || outputs.empty()) return nullptr;
  return std::make_unique<CpuDynamicQuantizeLinear>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, QuantizeLinear, create<true>);
TESSERA_REGISTER_EXECUTION(kCPU, DequantizeLinear, create<false>);
TESSERA_REGISTER_EXECUTION(kCPU, DynamicQuantizeLinear, createDynamic);

}  // namespace tessera
