// CPU elementwise unary ops: every op on f32/f64 (and f16/bf16 through f32), and Abs Neg
// Sign Relu on integers. Layout-agnostic: it runs on whatever layout its input has
// (NC4HW4 included, padding lanes computed and ignored), so no conversion is inserted.
// The transcendental ones on f32 run the vectorised kernels of backends/cpu/VectorMath.hpp;
// the rest, and other dtypes, a scalar loop over ops/UnaryMath.hpp.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/VectorMath.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/Unary.hpp"
#include "ops/UnaryMath.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// The ops ONNX defines on integers; wrapping like numpy (abs/neg of INT_MIN is INT_MIN).
bool integerUnarySupported(UnaryKind k) {
  return k == UnaryKind::kAbs || k == UnaryKind::kNeg || k == UnaryKind::kSign ||
         k == UnaryKind::kRelu || k == UnaryKind::kIdentity;
}

template <typename T>
inline T applyIntegerUnary(UnaryKind k, T x) {
  switch (k) {
    case UnaryKind::kAbs:
      if constexpr (std::is_signed_v<T>) return x < T(0) ? wrapSub(T(0), x) : x;
      return x;
    case UnaryKind::kNeg: return wrapSub(T(0), x);
    case UnaryKind::kSign:
      if constexpr (std::is_signed_v<T>) return x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0));
      return x > T(0) ? T(1) : T(0);
    case UnaryKind::kRelu:
      if constexpr (std::is_signed_v<T>) return x > T(0) ? x : T(0);
      return x;
    default: return x;
  }
}

// y[0, n) = op(x[0, n)) on f32 through VectorMath, for the kinds it covers.
using VectorKernel = void (*)(const UnaryParams& p, const float* x, float* y, int64_t n);

template <void (*Fn)(const float*, float*, int64_t)>
void withoutParams(const UnaryParams&, const float* x, float* y, int64_t n) { Fn(x, y, n); }

VectorKernel vectorKernel(UnaryKind k) {
  switch (k) {
    case UnaryKind::kExp: return withoutParams<vectorExp>;
    case UnaryKind::kLog: return withoutParams<vectorLog>;
    case UnaryKind::kErf: return withoutParams<vectorErf>;
    case UnaryKind::kTanh: return withoutParams<vectorTanh>;
    case UnaryKind::kSigmoid: return withoutParams<vectorSigmoid>;
    case UnaryKind::kSoftplus: return withoutParams<vectorSoftplus>;
    case UnaryKind::kHardSwish: return withoutParams<vectorHardSwish>;
    case UnaryKind::kElu:
      return [](const UnaryParams& p, const float* x, float* y, int64_t n) { vectorElu(x, y, n, p.alpha); };
    case UnaryKind::kSelu:
      return [](const UnaryParams& p, const float* x, float* y, int64_t n) { vectorSelu(x, y, n, p.alpha, p.gamma); };
    case UnaryKind::kCelu:
      return [](const UnaryParams& p, const float* x, float* y, int64_t n) { vectorCelu(x, y, n, p.alpha); };
    default: return nullptr;
  }
}

class CpuUnary final : public Execution {
 public:
  CpuUnary(Backend* b, const UnaryParams& p) : Execution(b), params_(p), vector_(vectorKernel(p.kind)) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&,
                     std::vector<Layout>* in, std::vector<Layout>* out) const override {
    *in = {available[0]};
    *out = {available[0]};
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    WorkEstimate w = Execution::work(inputs, outputs);
    w.flops = static_cast<double>(outputs[0]->elementCount()) * (inputs.size() > 1 ? inputs.size() - 1 : 1);
    return w;
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& x = *inputs[0];
    Tensor& y = *outputs[0];
    const int64_t n = physicalElementCount(x.shape(), x.layout());
    if (params_.kind == UnaryKind::kIdentity) {
      std::memcpy(y.data(), x.data(), x.byteSize());
      return Status::ok();
    }
    const UnaryParams p = params_;
    ThreadPool& pool = cpuPool(*this);
    if (vector_ && x.dtype() == DataType::kF32) {
      const float* src = x.data<float>();
      float* dst = y.data<float>();
      pool.parallelFor(n, [&](int64_t b, int64_t e) { vector_(p, src + b, dst + b, e - b); }, kElementwiseGrain);
      return Status::ok();
    }
    dispatchElement(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using E = Element<T>;
      using C = typename E::Compute;
      const T* src = x.data<T>();
      T* dst = y.data<T>();
      if constexpr (std::is_floating_point_v<C>) {  // f32, f64, and f16/bf16 via f32
        // The kind is chosen once, outside the loop: no call or switch per element.
        dispatchUnaryKind(p.kind, [&](auto k) {
          constexpr UnaryKind K = decltype(k)::value;
          pool.parallelFor(n, [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) dst[i] = E::store(unaryScalar<K>(p, E::load(src[i])));
          }, kElementwiseGrain);
        });
      } else if constexpr (!std::is_same_v<T, bool>) {
        pool.parallelFor(n, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) dst[i] = applyIntegerUnary(p.kind, src[i]);
        }, kElementwiseGrain);
      }
    });
    return Status::ok();
  }

 private:
  UnaryParams params_;
  VectorKernel vector_;  // nullptr: the scalar loop
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  UnaryParams p;
  if (!UnaryParams::parse(node, &p).isOk()) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (p.kind == UnaryKind::kIdentity) return std::make_unique<CpuUnary>(b, p);  // any dtype
  if (isFloat(t)) return std::make_unique<CpuUnary>(b, p);
  if (!isInteger(t) || !integerUnarySupported(p.kind)) return nullptr;
  return std::make_unique<CpuUnary>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Abs, create);
TESSERA_REGISTER_EXECUTION(kCPU, Neg, create);
TESSERA_REGISTER_EXECUTION(kCPU, Reciprocal, create);
TESSERA_REGISTER_EXECUTION(kCPU, Floor, create);
TESSERA_REGISTER_EXECUTION(kCPU, Ceil, create);
TESSERA_REGISTER_EXECUTION(kCPU, Round, create);
TESSERA_REGISTER_EXECUTION(kCPU, Sqrt, create);
TESSERA_REGISTER_EXECUTION(kCPU, Exp, create);
TESSERA_REGISTER_EXECUTION(kCPU, Log, create);
TESSERA_REGISTER_EXECUTION(kCPU, Sin, create);
TESSERA_REGISTER_EXECUTION(kCPU, Cos, create);
TESSERA_REGISTER_EXECUTION(kCPU, Tan, create);
TESSERA_REGISTER_EXECUTION(kCPU, Erf, create);
TESSERA_REGISTER_EXECUTION(kCPU, Sign, create);
TESSERA_REGISTER_EXECUTION(kCPU, Tanh, create);
TESSERA_REGISTER_EXECUTION(kCPU, Sigmoid, create);
TESSERA_REGISTER_EXECUTION(kCPU, Relu, create);
TESSERA_REGISTER_EXECUTION(kCPU, LeakyRelu, create);
TESSERA_REGISTER_EXECUTION(kCPU, Elu, create);
TESSERA_REGISTER_EXECUTION(kCPU, Selu, create);
TESSERA_REGISTER_EXECUTION(kCPU, Celu, create);
TESSERA_REGISTER_EXECUTION(kCPU, Softplus, create);
TESSERA_REGISTER_EXECUTION(kCPU, Softsign, create);
TESSERA_REGISTER_EXECUTION(kCPU, ThresholdedRelu, create);
TESSERA_REGISTER_EXECUTION(kCPU, HardSigmoid, create);
TESSERA_REGISTER_EXECUTION(kCPU, HardSwish, create);
TESSERA_REGISTER_EXECUTION(kCPU, Identity, create);
TESSERA_REGISTER_EXECUTION(kCPU, Acos, create);
TESSERA_REGISTER_EXECUTION(kCPU, Asin, create);
TESSERA_REGISTER_EXECUTION(kCPU, Atan, create);
TESSERA_REGISTER_EXECUTION(kCPU, Acosh, create);
TESSERA_REGISTER_EXECUTION(kCPU, Asinh, create);
TESSERA_REGISTER_EXECUTION(kCPU, Atanh, create);
TESSERA_REGISTER_EXECUTION(kCPU, Cosh, create);
TESSERA_REGISTER_EXECUTION(kCPU, Sinh, create);
TESSERA_REGISTER_EXECUTION(kCPU, Shrink, create);

}  // namespace tessera
