// CPU Split: the mirror of Concat. For each outer index, each output takes one contiguous
// block of the input row. Works on bytes: every dtype.
#include <algorithm>
#include <cstring>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/Split.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuSplit final : public Execution {
 public:
  CpuSplit(Backend* b, const SplitParams& p) : Execution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Shape& inShape = inputs[0]->shape();
    int64_t axis = 0;
    normalizeAxis(params_.axis, static_cast<int64_t>(inShape.size()), &axis);
    outer_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= inShape[d];
    const size_t elem = dataTypeSize(inputs[0]->dtype());
    blockBytes_.clear();
    inRowBytes_ = 0;
    for (const Tensor* t : outputs) {
      int64_t block = 1;
      for (int d = static_cast<int>(axis); d < t->rank(); ++d) block *= t->dim(d);
      blockBytes_.push_back(static_cast<size_t>(block) * elem);
      inRowBytes_ += blockBytes_.back();
    }
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (inputs[0]->elementCount() == 0) return Status::ok();
    const char* src = inputs[0]->data<char>();
    const int64_t minRows = std::max<int64_t>(1, 65536 / std::max<size_t>(1, inRowBytes_));
    cpuPool(*this).parallelFor(outer_, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        const char* row = src + o * inRowBytes_;
        for (size_t i = 0; i < outputs.size(); ++i) {
          if (blockBytes_[i] == 0) continue;
          std::memcpy(outputs[i]->data<char>() + o * blockBytes_[i], row, blockBytes_[i]);
          row += blockBytes_[i];
        }
      }
    }, minRows);
    return Status::ok();
  }

 private:
  SplitParams params_;
  int64_t outer_ = 1;
  std::vector<size_t> blockBytes_;
  size_t inRowBytes_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors&, const Tensors&) {
  SplitParams p;
  if (!SplitParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuSplit>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Split, create);

}  // namespace tessera
