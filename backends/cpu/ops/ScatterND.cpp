// CPU ScatterND (semantics: ops/Scatter.hpp): the output starts as a copy of data; each index
// tuple names a slice of data.shape[k:] that its update slice is combined into. All tuples
// are checked and turned into slice offsets first (a buffer sized at resize), then the slices
// are applied in tuple order; the positions within a slice run in parallel, so duplicates
// still meet in order. reduction none moves bytes (any dtype); the others compute on f32,
// f64, i32 and i64.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ScatterDispatch.hpp"
#include "ops/Scatter.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuScatterND final : public Execution {
 public:
  CpuScatterND(Backend* b, const Node& node, const ScatterNDParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    dataShape_ = inputs[0]->shape();
    const Shape& is = inputs[1]->shape();
    k_ = is.back();
    tuples_ = elementCount(Shape(is.begin(), is.end() - 1));
    slice_ = elementCount(Shape(dataShape_.begin() + k_, dataShape_.end()));
    dataStride_.assign(dataShape_.size(), 1);
    for (size_t d = dataShape_.size(); d-- > 1;) dataStride_[d - 1] = dataStride_[d] * dataShape_[d];
    offsets_.assign(static_cast<size_t>(tuples_), 0);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& data = *inputs[0];
    Tensor& out = *outputs[0];
    const size_t bytes = static_cast<size_t>(data.elementCount()) * dataTypeSize(data.dtype());
    if (bytes && out.data() != data.data()) std::memcpy(out.data(), data.data(), bytes);
    const Status s = inputs[1]->dtype() == DataType::kI64 ? sliceOffsets(inputs[1]->data<int64_t>())
                                                          : sliceOffsets(inputs[1]->data<int32_t>());
    TESSERA_RETURN_IF_ERROR(s);
    if (tuples_ == 0 || slice_ == 0) return Status::ok();
    const Tensor& updates = *inputs[2];
    dispatchScatter(params_.reduction, out.dtype(), [&](auto red, auto tag) {
      using T = typename decltype(tag)::type;
      scatter<decltype(red)::value>(updates.data<T>(), out.data<T>());
    });
    return Status::ok();
  }

 private:
  template <typename I>
  Status sliceOffsets(const I* indices) {
    for (int64_t t = 0; t < tuples_; ++t) {
      int64_t off = 0;
      for (int64_t j = 0; j < k_; ++j) {
        int64_t i = static_cast<int64_t>(indices[t * k_ + j]);
        const int64_t extent = dataShape_[j];
        if (i < -extent || i >= extent)
          return Status::invalid(node_.label() + ": input 'indices' holds " + std::to_string(i) + " in tuple " +
                                 std::to_string(t) + ", out of range for dimension " + std::to_string(j) +
                                 " of extent " + std::to_string(extent));
        if (i < 0) i += extent;
        off += i * dataStride_[j];
      }
      offsets_[t] = off;
    }
    return Status::ok();
  }

  template <ScatterReduction R, typename T>
  void scatter(const T* updates, T* dst) {
    const int64_t* offsets = offsets_.data();
    const int64_t tuples = tuples_, slice = slice_;
    cpuPool(*this).parallelFor(slice, [&](int64_t begin, int64_t end) {
      for (int64_t t = 0; t < tuples; ++t) {
        T* d = dst + offsets[t];
        const T* u = updates + t * slice;
        for (int64_t e = begin; e < end; ++e) scatterCombine<R>(d[e], u[e]);
      }
    }, 4096);
  }

  Node node_;
  ScatterNDParams params_;
  Shape dataShape_;
  int64_t k_ = 0, tuples_ = 0, slice_ = 1;
  std::vector<int64_t> dataStride_;  // data's element strides
  std::vector<int64_t> offsets_;     // each tuple's slice offset in data, filled per run
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  ScatterNDParams p;
  if (!ScatterNDParams::parse(node, &p).isOk() || inputs.size() < 3 || !inputs[0] || !inputs[1] || !inputs[2])
    return nullptr;
  const DataType it = inputs[1]->dtype();
  if (it != DataType::kI64 && it != DataType::kI32) return nullptr;
  if (!dispatchScatter(p.reduction, inputs[0]->dtype(), [](auto, auto) {})) return nullptr;
  return std::make_unique<CpuScatterND>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, ScatterND, create);

}  // namespace tessera
