// CPU ScatterElements and Scatter (semantics: ops/Scatter.hpp): the output starts as a copy of
// data, then each update is combined into the position its index names. Every index is
// checked before anything is scattered. Two updates can meet only when they share all
// coordinates but the axis one, so the outer positions run in parallel and each target still
// sees its updates in index order. reduction none moves bytes (any dtype); the others
// compute on f32, f64, i32 and i64.
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

class CpuScatterElements final : public Execution {
 public:
  CpuScatterElements(Backend* b, const Node& node, const ScatterElementsParams& p)
      : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    const Shape& data = inputs[0]->shape();
    idxShape_ = inputs[1]->shape();
    normalizeAxis(params_.axis, static_cast<int64_t>(data.size()), &axis_);
    // The indices split along `axis`: outer positions x the axis x inner positions.
    outer_ = 1;
    inner_ = 1;
    for (int64_t d = 0; d < axis_; ++d) outer_ *= idxShape_[d];
    for (size_t d = static_cast<size_t>(axis_) + 1; d < idxShape_.size(); ++d) inner_ *= idxShape_[d];
    idxAxis_ = idxShape_[axis_];
    dataAxis_ = data[axis_];
    dataStride_.assign(data.size(), 1);
    for (size_t d = data.size() - 1; d > 0; --d) dataStride_[d - 1] = dataStride_[d] * data[d];
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& data = *inputs[0];
    Tensor& out = *outputs[0];
    const size_t bytes = static_cast<size_t>(data.elementCount()) * dataTypeSize(data.dtype());
    if (bytes && out.data() != data.data()) std::memcpy(out.data(), data.data(), bytes);
    if (inputs[1]->elementCount() == 0) return Status::ok();
    if (inputs[1]->dtype() == DataType::kI64) return run(inputs[1]->data<int64_t>(), *inputs[2], out);
    return run(inputs[1]->data<int32_t>(), *inputs[2], out);
  }

 private:
  template <typename I>
  Status run(const I* indices, const Tensor& updates, Tensor& out) {
    const int64_t count = updates.elementCount();
    for (int64_t k = 0; k < count; ++k) {
      const int64_t i = static_cast<int64_t>(indices[k]);
      if (i < -dataAxis_ || i >= dataAxis_)
        return Status::invalid(node_.label() + ": input 'indices' holds " + std::to_string(i) + " at element " +
                               std::to_string(k) + ", out of range for axis " + std::to_string(axis_) +
                               " of extent " + std::to_string(dataAxis_));
    }
    dispatchScatter(params_.reduction, out.dtype(), [&](auto red, auto tag) {
      using T = typename decltype(tag)::type;
      scatter<decltype(red)::value>(indices, updates.data<T>(), out.data<T>());
    });
    return Status::ok();
  }

  template <ScatterReduction R, typename T, typename I>
  void scatter(const I* indices, const T* updates, T* dst) {
    const Shape& is = idxShape_;
    const int64_t rank = static_cast<int64_t>(is.size());
    const std::vector<int64_t>& stride = dataStride_;
    const int64_t axis = axis_, idxAxis = idxAxis_, inner = inner_, dataAxis = dataAxis_;
    cpuPool(*this).parallelFor(outer_, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        // The data offset of outer position o (coordinates before the axis).
        int64_t rest = o, base = 0;
        for (int64_t d = axis - 1; d >= 0; --d) {
          base += (rest % is[d]) * stride[d];
          rest /= is[d];
        }
        for (int64_t in = 0; in < inner; ++in) {
          int64_t r = in, off = base;
          for (int64_t d = rank - 1; d > axis; --d) {
            off += (r % is[d]) * stride[d];
            r /= is[d];
          }
          // Along the axis last, so updates meeting at one target arrive in index order.
          for (int64_t a = 0; a < idxAxis; ++a) {
            const int64_t k = (o * idxAxis + a) * inner + in;
            int64_t i = static_cast<int64_t>(indices[k]);
            if (i < 0) i += dataAxis;
            scatterCombine<R>(dst[off + i * stride[axis]], updates[k]);
          }
        }
      }
    }, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, idxAxis_ * inner_)));
  }

  Node node_;
  ScatterElementsParams params_;
  Shape idxShape_;
  int64_t axis_ = 0, outer_ = 1, inner_ = 1, idxAxis_ = 0, dataAxis_ = 0;
  std::vector<int64_t> dataStride_;  // data's element strides
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  ScatterElementsParams p;
  if (!ScatterElementsParams::parse(node, &p).isOk() || inputs.size() < 3 || !inputs[0] || !inputs[1] ||
      !inputs[2])
    return nullptr;
  const DataType it = inputs[1]->dtype();
  if (it != DataType::kI64 && it != DataType::kI32) return nullptr;
  if (!dispatchScatter(p.reduction, inputs[0]->dtype(), [](auto, auto) {})) return nullptr;
  return std::make_unique<CpuScatterElements>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, ScatterElements, create);
TESSERA_REGISTER_EXECUTION(kCPU, Scatter, create);

}  // namespace tessera
