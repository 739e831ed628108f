// CPU Reshape, Flatten, Squeeze and Unsqueeze: the row-major bytes do not change, only the
// shape does (already set by shape inference), so the execution is one copy, or nothing
// where the Session gave the output its input's storage (Backend::onShareBuffer).
#include <algorithm>
#include <cstring>

#include "backends/cpu/CpuBackend.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuReshapeCopy final : public Execution {
 public:
  explicit CpuReshapeCopy(Backend* b) : Execution(b) {}
  bool outputIsInputBytes() const override { return true; }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const size_t bytes = static_cast<size_t>(inputs[0]->elementCount()) *
                         dataTypeSize(inputs[0]->dtype());
    if (bytes == 0 || inputs[0]->data() == outputs[0]->data()) return Status::ok();
    const char* src = inputs[0]->data<char>();
    char* dst = outputs[0]->data<char>();
    // Large copies are split across threads: one memcpy stream does not fill the bus.
    const int64_t chunk = 1 << 18;
    const int64_t chunks = static_cast<int64_t>((bytes + chunk - 1) / chunk);
    cpuPool(*this).parallelFor(chunks, [&](int64_t begin, int64_t end) {
      const size_t from = static_cast<size_t>(begin * chunk);
      const size_t to = std::min(bytes, static_cast<size_t>(end * chunk));
      std::memcpy(dst + from, src + from, to - from);
    });
    return Status::ok();
  }
};

std::unique_ptr<Execution> create(Backend* b, const Node&, const Tensors&, const Tensors&) {
  return std::make_unique<CpuReshapeCopy>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Reshape, create);
TESSERA_REGISTER_EXECUTION(kCPU, Flatten, create);
TESSERA_REGISTER_EXECUTION(kCPU, Squeeze, create);
TESSERA_REGISTER_EXECUTION(kCPU, Unsqueeze, create);

}  // namespace tessera
