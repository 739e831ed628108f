// CPU Gather: for each outer index and each index value, one contiguous block of the
// inner dims is copied. Works on bytes (every dtype); indices may be i32 or i64.
#include <algorithm>
#include <cstring>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/Gather.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuGather final : public Execution {
 public:
  CpuGather(Backend* b, const Node& node, const GatherParams& p)
      : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    const Shape& s = inputs[0]->shape();
    int64_t axis = 0;
    normalizeAxis(params_.axis, static_cast<int64_t>(s.size()), &axis);
    outer_ = 1;
    inner_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= s[d];
    for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner_ *= s[d];
    axisExtent_ = s[axis];
    blockBytes_ = static_cast<size_t>(inner_) * dataTypeSize(inputs[0]->dtype());
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& indices = *inputs[1];
    const int64_t count = indices.elementCount();
    if (outputs[0]->elementCount() == 0) return Status::ok();
    if (indices.dtype() == DataType::kI64)
      return gather(inputs[0]->data<char>(), indices.data<int64_t>(), count, outputs[0]->data<char>());
    return gather(inputs[0]->data<char>(), indices.data<int32_t>(), count, outputs[0]->data<char>());
  }

 private:
  template <typename I>
  Status gather(const char* src, const I* indices, int64_t count, char* dst) {
    // Check every index once, so the copy loop can trust them.
    for (int64_t k = 0; k < count; ++k) {
      const int64_t i = static_cast<int64_t>(indices[k]);
      if (i < -axisExtent_ || i >= axisExtent_)
        return Status::invalid(node_.label() + ": index " + std::to_string(i) +
                               " is out of range for an axis of extent " +
                               std::to_string(axisExtent_));
    }
    const size_t srcRowBytes = static_cast<size_t>(axisExtent_) * blockBytes_;
    const int64_t minTasks = std::max<int64_t>(1, 65536 / std::max<size_t>(1, blockBytes_));
    cpuPool(*this).parallelFor(outer_ * count, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t o = t / count;
        int64_t i = static_cast<int64_t>(indices[t % count]);
        if (i < 0) i += axisExtent_;
        std::memcpy(dst + t * blockBytes_, src + o * srcRowBytes + i * blockBytes_, blockBytes_);
      }
    }, minTasks);
    return Status::ok();
  }

  Node node_;
  GatherParams params_;
  int64_t outer_ = 1, inner_ = 1, axisExtent_ = 0;
  size_t blockBytes_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  GatherParams p;
  if (!GatherParams::parse(node, &p).isOk()) return nullptr;
  const DataType it = inputs[1]->dtype();
  if (it != DataType::kI64 && it != DataType::kI32) return nullptr;
  return std::make_unique<CpuGather>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Gather, create);

}  // namespace tessera
