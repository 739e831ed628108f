// CPU GatherElements: one element per output position; the source offset is the output's
// multi-index in data's strides with the axis term taken from the index. Every index is
// checked before anything is written. Any dtype (copied by element size); i32 or i64 indices.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/GatherElements.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuGatherElements final : public Execution {
 public:
  CpuGatherElements(Backend* b, const Node& node, const GatherElementsParams& p)
      : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    const Shape& data = inputs[0]->shape();
    const Shape& idx = inputs[1]->shape();
    normalizeAxis(params_.axis, static_cast<int64_t>(data.size()), &axis_);
    // Split the output into rows along `axis`: outer positions x the axis x inner positions.
    outer_ = 1;
    inner_ = 1;
    for (int64_t d = 0; d < axis_; ++d) outer_ *= idx[d];
    for (size_t d = static_cast<size_t>(axis_) + 1; d < idx.size(); ++d) inner_ *= idx[d];
    idxAxis_ = idx[axis_];
    dataAxis_ = data[axis_];
    dataStride_.assign(data.size(), 1);
    for (size_t d = data.size() - 1; d > 0; --d) dataStride_[d - 1] = dataStride_[d] * data[d];
    elementBytes_ = dataTypeSize(inputs[0]->dtype());
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (outputs[0]->elementCount() == 0) return Status::ok();
    if (inputs[1]->dtype() == DataType::kI64) return gather(*inputs[0], inputs[1]->data<int64_t>(), *outputs[0]);
    return gather(*inputs[0], inputs[1]->data<int32_t>(), *outputs[0]);
  }

 private:
  template <typename I>
  Status gather(const Tensor& data, const I* indices, Tensor& out) {
    const int64_t count = out.elementCount();
    for (int64_t k = 0; k < count; ++k) {
      const int64_t i = static_cast<int64_t>(indices[k]);
      if (i < -dataAxis_ || i >= dataAxis_)
        return Status::invalid(node_.label() + ": index " + std::to_string(i) + " at element " +
                               std::to_string(k) + " is out of range for axis " + std::to_string(axis_) +
                               " of extent " + std::to_string(dataAxis_));
    }
    const Shape& os = out.shape();
    const int64_t rank = static_cast<int64_t>(os.size());
    const std::vector<int64_t>& dataStride = dataStride_;
    const char* src = data.data<char>();
    char* dst = out.data<char>();
    const size_t eb = elementBytes_;
    cpuPool(*this).parallelFor(outer_, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        // The data offset of outer position o (coordinates before the axis, in os's extents).
        int64_t rest = o, base = 0;
        for (int64_t d = axis_ - 1; d >= 0; --d) {
          base += (rest % os[d]) * dataStride[d];
          rest /= os[d];
        }
        for (int64_t a = 0; a < idxAxis_; ++a) {
          for (int64_t in = 0; in < inner_; ++in) {
            // Coordinates after the axis: `in` unravelled in the output's extents.
            int64_t r = in, off = 0;
            for (int64_t d = rank - 1; d > axis_; --d) {
              off += (r % os[d]) * dataStride[d];
              r /= os[d];
            }
            const int64_t k = (o * idxAxis_ + a) * inner_ + in;
            int64_t i = static_cast<int64_t>(indices[k]);
            if (i < 0) i += dataAxis_;
            std::memcpy(dst + k * eb, src + (base + i * dataStride[axis_] + off) * eb, eb);
          }
        }
      }
    }, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, idxAxis_ * inner_)));
    return Status::ok();
  }

  Node node_;
  GatherElementsParams params_;
  int64_t axis_ = 0, outer_ = 1, inner_ = 1, idxAxis_ = 0, dataAxis_ = 0;
  std::vector<int64_t> dataStride_;  // data's element strides
  size_t elementBytes_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  GatherElementsParams p;
  if (!GatherElementsParams::parse(node, &p).isOk() || inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  const DataType it = inputs[1]->dtype();
  if (it != DataType::kI64 && it != DataType::kI32) return nullptr;
  return std::make_unique<CpuGatherElements>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, GatherElements, create);

}  // namespace tessera
