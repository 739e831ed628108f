// CPU Trilu: per matrix row, the kept run of columns is copied and the rest zeroed (all-zero
// bytes are zero in every dtype). k is read from its input when the op runs.
#include <algorithm>
#include <cstring>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/Trilu.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuTrilu final : public Execution {
 public:
  CpuTrilu(Backend* b, const TriluParams& p) : Execution(b), params_(p) {}

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& x = *inputs[0];
    const int64_t k = inputs.size() > 1 && inputs[1] && inputs[1]->elementCount() == 1
                          ? inputs[1]->data<int64_t>()[0] : 0;
    const int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
    const int64_t matrices = rows * cols == 0 ? 0 : x.elementCount() / (rows * cols);
    const size_t eb = dataTypeSize(x.dtype());
    const char* src = x.data<char>();
    char* dst = outputs[0]->data<char>();
    cpuPool(*this).parallelFor(matrices * rows, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t i = r % rows;
        // Kept columns [lo, hi): upper j >= i + k, lower j <= i + k (clamped to the row).
        const int64_t lo = params_.upper ? std::clamp<int64_t>(i + k, 0, cols) : 0;
        const int64_t hi = params_.upper ? cols : std::clamp<int64_t>(i + k + 1, 0, cols);
        char* out = dst + r * cols * eb;
        std::memset(out, 0, cols * eb);
        if (hi > lo) std::memcpy(out + lo * eb, src + (r * cols + lo) * eb, (hi - lo) * eb);
      }
    }, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, cols)));
    return Status::ok();
  }

 private:
  TriluParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  TriluParams p;
  if (!TriluParams::parse(node, &p).isOk() || inputs.empty() || !inputs[0]) return nullptr;
  if (inputs.size() > 1 && inputs[1] && inputs[1]->dtype() != DataType::kI64) return nullptr;
  return std::make_unique<CpuTrilu>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Trilu, create);

}  // namespace tessera
