// CPU Compress (semantics: ops/Compress.hpp): lists the kept slice indices (at resize when the
// condition is constant), allocates the output when its shape comes from the values, then
// copies the kept [inner] rows of each outer block in parallel. Moves bytes: any dtype.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "ops/Compress.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuCompress final : public Execution {
 public:
  CpuCompress(Backend* b, const Node& node, const CompressParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    TESSERA_RETURN_IF_ERROR(OptionalAxisGeometry::make(node_, params_.hasAxis, params_.axis, inputs[0]->shape(), &geometry_));
    kept_.assign(static_cast<size_t>(inputs[1]->dim(0)), 0);
    // A planned output has the input's rank (>= 1); a scalar placeholder means its shape comes
    // from the condition's values and this kernel allocates it.
    allocates_ = outputs[0]->rank() == 0;
    keptCount_ = allocates_ ? 0 : listKept(*inputs[1]);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& x = *inputs[0];
    if (allocates_) {
      keptCount_ = listKept(*inputs[1]);
      *outputs[0] = Tensor::hostAllocate(geometry_.outputShape(params_.hasAxis, x.shape(), keptCount_), x.dtype());
    }
    const int64_t inner = geometry_.inner, extent = geometry_.extent, kept = keptCount_;
    if (geometry_.outer * kept * inner == 0) return Status::ok();
    const int64_t* keptIndex = kept_.data();
    dispatchBySize(dataTypeSize(x.dtype()), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = x.data<T>();
      T* dst = outputs[0]->data<T>();
      // One row: `inner` elements of slice keptIndex[r % kept] in outer block r / kept.
      cpuPool(*this).parallelFor(geometry_.outer * kept, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const T* from = src + ((r / kept) * extent + keptIndex[r % kept]) * inner;
          std::memcpy(dst + r * inner, from, static_cast<size_t>(inner) * sizeof(T));
        }
      }, std::max<int64_t>(1, 4096 / std::max<int64_t>(inner, 1)));
    });
    return Status::ok();
  }

 private:
  // Fills kept_ with the indices of the true entries; returns how many.
  int64_t listKept(const Tensor& condition) {
    const bool* c = condition.data<bool>();
    int64_t n = 0;
    for (int64_t i = 0; i < condition.dim(0); ++i)
      if (c[i]) kept_[static_cast<size_t>(n++)] = i;
    return n;
  }

  Node node_;
  CompressParams params_;
  OptionalAxisGeometry geometry_;
  std::vector<int64_t> kept_;
  int64_t keptCount_ = 0;
  bool allocates_ = false;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  CompressParams p;
  if (!CompressParams::parse(node, &p).isOk()) return nullptr;
  if (inputs[1]->dtype() != DataType::kBool) return nullptr;
  if (!dispatchBySize(dataTypeSize(inputs[0]->dtype()), [](auto) {}) || inputs[0]->dtype() == DataType::kString)
    return nullptr;
  return std::make_unique<CpuCompress>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Compress, create);

}  // namespace tessera
