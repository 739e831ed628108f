// CPU Concat: for each outer index (the dims before the axis), each input contributes one
// contiguous block, so the copy is a row of memcpys. Works on bytes: every dtype.
#include <algorithm>
#include <cstring>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/Concat.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuConcat final : public Execution {
 public:
  CpuConcat(Backend* b, const ConcatParams& p) : Execution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Shape& outShape = outputs[0]->shape();
    int64_t axis = 0;
    normalizeAxis(params_.axis, static_cast<int64_t>(outShape.size()), &axis);
    outer_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= outShape[d];
    const size_t elem = dataTypeSize(outputs[0]->dtype());
    blockBytes_.clear();
    outRowBytes_ = 0;
    for (const Tensor* t : inputs) {
      int64_t block = 1;
      for (int d = static_cast<int>(axis); d < t->rank(); ++d) block *= t->dim(d);
      blockBytes_.push_back(static_cast<size_t>(block) * elem);
      outRowBytes_ += blockBytes_.back();
    }
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (outputs[0]->elementCount() == 0) return Status::ok();
    char* dst = outputs[0]->data<char>();
    const int64_t minRows = std::max<int64_t>(1, 65536 / std::max<size_t>(1, outRowBytes_));
    cpuPool(*this).parallelFor(outer_, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        char* row = dst + o * outRowBytes_;
        for (size_t i = 0; i < inputs.size(); ++i) {
          if (blockBytes_[i] == 0) continue;
          std::memcpy(row, inputs[i]->data<char>() + o * blockBytes_[i], blockBytes_[i]);
          row += blockBytes_[i];
        }
      }
    }, minRows);
    return Status::ok();
  }

 private:
  ConcatParams params_;
  int64_t outer_ = 1;
  std::vector<size_t> blockBytes_;
  size_t outRowBytes_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors&, const Tensors&) {
  ConcatParams p;
  if (!ConcatParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuConcat>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Concat, create);

}  // namespace tessera
