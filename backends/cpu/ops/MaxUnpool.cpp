// CPU MaxUnpool (semantics: ops/MaxUnpool.hpp): zero the output, then copy each X element to
// the offset its index names, re-addressed into output_shape's strides when that is larger.
// Indices are checked before anything is written; writes go in X's order (duplicates: the
// last wins), one pass over X. Any dtype (copied by element size).
#include <cstring>
#include <string>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "ops/MaxUnpool.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuMaxUnpool final : public Execution {
 public:
  CpuMaxUnpool(Backend* b, const Node& node, const MaxUnpoolParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    TESSERA_RETURN_IF_ERROR(params_.unpooledShape(node_, inputs[0]->shape(), &unpooled_));
    const Shape& out = outputs[0]->shape();
    reshaped_ = out != unpooled_;
    outStride_.assign(out.size(), 1);
    for (size_t d = out.size(); d-- > 1;) outStride_[d - 1] = outStride_[d] * out[d];
    unpooledCount_ = elementCount(unpooled_);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const int64_t count = inputs[0]->elementCount();
    const int64_t* indices = inputs[1]->data<int64_t>();
    for (int64_t j = 0; j < count; ++j) {
      if (indices[j] < 0 || indices[j] >= unpooledCount_)
        return Status::invalid(node_.label() + ": input 'I' holds " + std::to_string(indices[j]) + " at element " +
                               std::to_string(j) + ", outside the unpooled tensor " + joinInts(unpooled_) +
                               " ([0, " + std::to_string(unpooledCount_) + "))");
    }
    Tensor& out = *outputs[0];
    const size_t eb = dataTypeSize(out.dtype());
    std::memset(out.data(), 0, static_cast<size_t>(out.elementCount()) * eb);
    dispatchBySize(eb, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* x = inputs[0]->data<T>();
      T* y = out.data<T>();
      for (int64_t j = 0; j < count; ++j) y[outputOffset(indices[j])] = x[j];
    });
    return Status::ok();
  }

 private:
  // An offset in the unpooled tensor, as an offset in the output.
  int64_t outputOffset(int64_t flat) const {
    if (!reshaped_) return flat;
    int64_t off = 0;
    for (size_t d = unpooled_.size(); d-- > 0;) {
      off += (flat % unpooled_[d]) * outStride_[d];
      flat /= unpooled_[d];
    }
    return off;
  }

  Node node_;
  MaxUnpoolParams params_;
  Shape unpooled_;
  std::vector<int64_t> outStride_;  // the output's element strides
  int64_t unpooledCount_ = 0;
  bool reshaped_ = false;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  MaxUnpoolParams p;
  if (!MaxUnpoolParams::parse(node, &p).isOk() || inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  if (inputs[1]->dtype() != DataType::kI64) return nullptr;
  const size_t s = dataTypeSize(inputs[0]->dtype());
  if (s != 1 && s != 2 && s != 4 && s != 8) return nullptr;
  return std::make_unique<CpuMaxUnpool>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, MaxUnpool, create);

}  // namespace tessera
