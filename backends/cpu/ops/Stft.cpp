// CPU STFT (semantics: ops/Stft.hpp) on f32 and f64: each frame is gathered (times the
// window) into a complex buffer and transformed by one FftPlan of the frame length, made at
// resize (backends/cpu/Fft.hpp). Frames of all batches are split over the threads.
#include <algorithm>
#include <complex>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/Fft.hpp"
#include "ops/Stft.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

const Tensor* optionalInput(const Tensors& inputs, size_t i) {
  return i < inputs.size() && inputs[i] && inputs[i]->dtype() != DataType::kUnknown ? inputs[i] : nullptr;
}

template <typename T>
class CpuStft final : public Execution {
 public:
  using Complex = std::complex<T>;
  CpuStft(Backend* b, const Node& node, const StftParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    TESSERA_RETURN_IF_ERROR(resolveStft(node_, params_, *inputs[0], optionalInput(inputs, 1),
                                        optionalInput(inputs, 2), optionalInput(inputs, 3), &g_));
    plan_.plan(g_.frameLength, false);
    tasks_ = std::max<int64_t>(1, std::min<int64_t>(cpuPool(*this).threads(), g_.batch * g_.frames));
    perTask_ = 2 * g_.frameLength + plan_.scratchSize();
    scratch_.assign(static_cast<size_t>(perTask_ * tasks_), Complex(0, 0));
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const T* x = inputs[0]->data<T>();
    const T* window = g_.windowed ? inputs[2]->data<T>() : nullptr;
    T* y = outputs[0]->data<T>();
    const int64_t count = g_.batch * g_.frames, F = g_.frameLength, C = g_.channels;
    cpuPool(*this).parallelFor(tasks_, [&](int64_t tBegin, int64_t tEnd) {
      for (int64_t t = tBegin; t < tEnd; ++t) {
        Complex* in = scratch_.data() + t * perTask_;
        Complex* out = in + F;
        Complex* work = out + F;
        for (int64_t s = count * t / tasks_; s < count * (t + 1) / tasks_; ++s) {
          const int64_t b = s / g_.frames, f = s % g_.frames;
          const T* src = x + (b * g_.length + f * g_.step) * C;
          for (int64_t j = 0; j < F; ++j) {
            const T w = window ? window[j] : T(1);
            in[j] = Complex(src[j * C] * w, C == 2 ? src[j * C + 1] * w : T(0));
          }
          plan_.run(in, out, work);
          T* dst = y + s * g_.bins * 2;
          for (int64_t k = 0; k < g_.bins; ++k) {
            dst[2 * k] = out[k].real();
            dst[2 * k + 1] = out[k].imag();
          }
        }
      }
    }, 1);
    return Status::ok();
  }

 private:
  Node node_;
  StftParams params_;
  StftGeometry g_;
  FftPlan<T> plan_;
  int64_t tasks_ = 1, perTask_ = 0;
  std::vector<Complex> scratch_;  // per task: frame, spectrum, the plan's scratch
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  StftParams p;
  if (!StftParams::parse(node, &p).isOk() || inputs.empty() || !inputs[0]) return nullptr;
  if (inputs[0]->dtype() == DataType::kF32) return std::make_unique<CpuStft<float>>(b, node, p);
  if (inputs[0]->dtype() == DataType::kF64) return std::make_unique<CpuStft<double>>(b, node, p);
  return nullptr;
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, STFT, create);

}  // namespace tessera
