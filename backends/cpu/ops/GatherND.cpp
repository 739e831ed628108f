// CPU GatherND (semantics: ops/GatherND.hpp): every index tuple is checked and turned into a
// slice offset in data first (a buffer sized at resize), then the slices are copied in
// parallel. Any dtype (copied by element size); i32 or i64 indices.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/GatherND.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuGatherND final : public Execution {
 public:
  CpuGatherND(Backend* b, const Node& node, const GatherNDParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    dataShape_ = inputs[0]->shape();
    const Shape& is = inputs[1]->shape();
    const int64_t b = params_.batchDims;
    k_ = is.back();
    tuples_ = elementCount(Shape(is.begin(), is.end() - 1));
    tuplesPerBatch_ = elementCount(Shape(is.begin() + b, is.end() - 1));
    slice_ = elementCount(Shape(dataShape_.begin() + b + k_, dataShape_.end()));
    dataStride_.assign(dataShape_.size(), 1);
    for (size_t d = dataShape_.size(); d-- > 1;) dataStride_[d - 1] = dataStride_[d] * dataShape_[d];
    batchStride_ = b > 0 ? dataStride_[b - 1] : 0;
    elementBytes_ = dataTypeSize(inputs[0]->dtype());
    offsets_.assign(static_cast<size_t>(tuples_), 0);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Status s = inputs[1]->dtype() == DataType::kI64 ? sliceOffsets(inputs[1]->data<int64_t>())
                                                          : sliceOffsets(inputs[1]->data<int32_t>());
    TESSERA_RETURN_IF_ERROR(s);
    if (outputs[0]->elementCount() == 0) return Status::ok();
    const char* src = inputs[0]->data<char>();
    char* dst = outputs[0]->data<char>();
    const size_t sliceBytes = static_cast<size_t>(slice_) * elementBytes_;
    const int64_t* offsets = offsets_.data();
    cpuPool(*this).parallelFor(tuples_, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t)
        std::memcpy(dst + t * sliceBytes, src + offsets[t] * static_cast<int64_t>(elementBytes_), sliceBytes);
    }, std::max<int64_t>(1, 16384 / std::max<size_t>(1, sliceBytes)));
    return Status::ok();
  }

 private:
  template <typename I>
  Status sliceOffsets(const I* indices) {
    const int64_t b = params_.batchDims;
    for (int64_t t = 0; t < tuples_; ++t) {
      int64_t off = (t / tuplesPerBatch_) * batchStride_;  // the batch position, flattened
      for (int64_t j = 0; j < k_; ++j) {
        int64_t i = static_cast<int64_t>(indices[t * k_ + j]);
        const int64_t extent = dataShape_[b + j];
        if (i < -extent || i >= extent)
          return Status::invalid(node_.label() + ": input 'indices' holds " + std::to_string(i) + " in tuple " +
                                 std::to_string(t) + ", out of range for data dimension " +
                                 std::to_string(b + j) + " of extent " + std::to_string(extent));
        if (i < 0) i += extent;
        off += i * dataStride_[b + j];
      }
      offsets_[t] = off;
    }
    return Status::ok();
  }

  Node node_;
  GatherNDParams params_;
  Shape dataShape_;
  int64_t k_ = 0, tuples_ = 0, tuplesPerBatch_ = 1, slice_ = 1, batchStride_ = 0;
  std::vector<int64_t> dataStride_;  // data's element strides
  std::vector<int64_t> offsets_;     // each tuple's slice offset in data, filled per run
  size_t elementBytes_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  GatherNDParams p;
  if (!GatherNDParams::parse(node, &p).isOk() || inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  const DataType it = inputs[1]->dtype();
  if (it != DataType::kI64 && it != DataType::kI32) return nullptr;
  return std::make_unique<CpuGatherND>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, GatherND, create);

}  // namespace tessera
