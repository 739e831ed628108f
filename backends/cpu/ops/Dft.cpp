// CPU DFT (semantics: ops/Dft.hpp) on f32 and f64: each of the outer x inner signals is
// gathered into a complex buffer (zero-padded or truncated to L), transformed by an FftPlan
// made at resize (radix-2, direct or Bluestein by length: backends/cpu/Fft.hpp) and
// scattered into the output, the inverse scaled by 1/L. Signals are split over the threads,
// each with its own buffers.
#include <algorithm>
#include <complex>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/Fft.hpp"
#include "ops/Dft.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

const Tensor* optionalInput(const Tensors& inputs, size_t i) {
  return i < inputs.size() && inputs[i] && inputs[i]->dtype() != DataType::kUnknown ? inputs[i] : nullptr;
}

template <typename T>
class CpuDft final : public Execution {
 public:
  using Complex = std::complex<T>;
  CpuDft(Backend* b, const Node& node, const DftParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    TESSERA_RETURN_IF_ERROR(resolveDft(node_, params_, inputs[0]->shape(), optionalInput(inputs, 1),
                                       optionalInput(inputs, 2), &g_));
    plan_.plan(g_.length, params_.inverse);
    tasks_ = std::max<int64_t>(1, std::min<int64_t>(cpuPool(*this).threads(), g_.outer * g_.inner));
    perTask_ = 2 * g_.length + plan_.scratchSize();
    scratch_.assign(static_cast<size_t>(perTask_ * tasks_), Complex(0, 0));
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const T* x = inputs[0]->data<T>();
    T* y = outputs[0]->data<T>();
    const int64_t signals = g_.outer * g_.inner, used = std::min(g_.signal, g_.length);
    const int64_t inStride = g_.inner * g_.channels, outStride = g_.inner * 2;
    const T scale = params_.inverse ? static_cast<T>(1.0 / static_cast<double>(g_.length)) : T(1);
    cpuPool(*this).parallelFor(tasks_, [&](int64_t tBegin, int64_t tEnd) {
      for (int64_t t = tBegin; t < tEnd; ++t) {
        Complex* in = scratch_.data() + t * perTask_;
        Complex* out = in + g_.length;
        Complex* work = out + g_.length;
        for (int64_t s = signals * t / tasks_; s < signals * (t + 1) / tasks_; ++s) {
          const int64_t o = s / g_.inner, i = s % g_.inner;
          const T* src = x + (o * g_.signal * g_.inner + i) * g_.channels;
          for (int64_t j = 0; j < used; ++j)
            in[j] = Complex(src[j * inStride], g_.channels == 2 ? src[j * inStride + 1] : T(0));
          std::fill(in + used, in + g_.length, Complex(0, 0));
          plan_.run(in, out, work);
          T* dst = y + (o * g_.bins * g_.inner + i) * 2;
          for (int64_t k = 0; k < g_.bins; ++k) {
            dst[k * outStride] = out[k].real() * scale;
            dst[k * outStride + 1] = out[k].imag() * scale;
          }
        }
      }
    }, 1);
    return Status::ok();
  }

 private:
  Node node_;
  DftParams params_;
  DftGeometry g_;
  FftPlan<T> plan_;
  int64_t tasks_ = 1, perTask_ = 0;
  std::vector<Complex> scratch_;  // per task: input, output, the plan's scratch
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  DftParams p;
  if (!DftParams::parse(node, &p).isOk() || inputs.empty() || !inputs[0]) return nullptr;
  if (inputs[0]->dtype() == DataType::kF32) return std::make_unique<CpuDft<float>>(b, node, p);
  if (inputs[0]->dtype() == DataType::kF64) return std::make_unique<CpuDft<double>>(b, node, p);
  return nullptr;
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, DFT, create);

}  // namespace tessera
