// CPU Unique (semantics: ops/Unique.hpp). Sorts the slice indices (ties by index, so each
// run of equal slices starts at its first occurrence: no stable sort, no allocation), splits
// the sorted order into groups of equal slices, and, for sorted=0, renumbers the groups by
// first occurrence in one pass over the input. Sorting dominates and is serial; the buffers
// are made at resize, only the outputs, whose lengths come from the values, at run time.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "ops/Unique.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// Three-way comparison with NaN after every number and equal to NaN (numpy's sort order).
template <typename T>
int compareValues(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) - std::isnan(b);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

class CpuUnique final : public Execution {
 public:
  CpuUnique(Backend* b, const Node& node, const UniqueParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    TESSERA_RETURN_IF_ERROR(OptionalAxisGeometry::make(node_, params_.hasAxis, params_.axis, inputs[0]->shape(), &geometry_));
    const size_t n = static_cast<size_t>(geometry_.extent);
    order_.resize(n);
    groupOf_.resize(n);
    first_.resize(n);
    count_.resize(n);
    position_.resize(n);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& x = *inputs[0];
    int64_t groups = 0;
    dispatchNumeric(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      groups = group(x.data<T>());
    });
    // Output position of each group.
    if (params_.sorted) {
      for (int64_t g = 0; g < groups; ++g) position_[g] = g;
    } else {
      int64_t next = 0;
      for (int64_t i = 0; i < geometry_.extent; ++i)
        if (first_[groupOf_[i]] == i) position_[groupOf_[i]] = next++;
    }

    *outputs[0] = Tensor::hostAllocate(geometry_.outputShape(params_.hasAxis, x.shape(), groups), x.dtype());
    const size_t rowBytes = static_cast<size_t>(geometry_.inner) * dataTypeSize(x.dtype());
    const char* src = x.data<char>();
    char* y = outputs[0]->data<char>();
    for (int64_t o = 0; o < geometry_.outer && rowBytes; ++o)
      for (int64_t g = 0; g < groups; ++g)
        std::memcpy(y + (o * groups + position_[g]) * rowBytes, src + (o * geometry_.extent + first_[g]) * rowBytes,
                    rowBytes);

    int64_t* indices = allocate(outputs, 1, groups);
    int64_t* inverse = allocate(outputs, 2, geometry_.extent);
    int64_t* counts = allocate(outputs, 3, groups);
    for (int64_t g = 0; g < groups; ++g) {
      if (indices) indices[position_[g]] = first_[g];
      if (counts) counts[position_[g]] = count_[g];
    }
    if (inverse)
      for (int64_t i = 0; i < geometry_.extent; ++i) inverse[i] = position_[groupOf_[i]];
    return Status::ok();
  }

 private:
  static int64_t* allocate(const Tensors& outputs, size_t i, int64_t length) {
    if (i >= outputs.size() || !outputs[i]) return nullptr;
    *outputs[i] = Tensor::hostAllocate({length}, DataType::kI64);
    return outputs[i]->data<int64_t>();
  }

  // Sorts the slices and fills groupOf_, first_ and count_ (groups in ascending order);
  // returns the number of groups.
  template <typename T>
  int64_t group(const T* x) {
    const int64_t n = geometry_.extent, inner = geometry_.inner, outer = geometry_.outer;
    auto compareSlices = [&](int64_t a, int64_t b) {
      for (int64_t o = 0; o < outer; ++o) {
        const T* pa = x + (o * n + a) * inner;
        const T* pb = x + (o * n + b) * inner;
        for (int64_t k = 0; k < inner; ++k)
          if (const int c = compareValues(pa[k], pb[k])) return c;
      }
      return 0;
    };
    // Along an axis, slices are equal only if == holds element-wise (a NaN equals nothing).
    auto sameSlices = [&](int64_t a, int64_t b) {
      if (!params_.hasAxis) return compareSlices(a, b) == 0;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < inner; ++k)
          if (!(x[(o * n + a) * inner + k] == x[(o * n + b) * inner + k])) return false;
      return true;
    };
    for (int64_t i = 0; i < n; ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(), [&](int64_t a, int64_t b) {
      const int c = compareSlices(a, b);
      return c < 0 || (c == 0 && a < b);
    });
    int64_t groups = 0;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = order_[k];
      if (k == 0 || !sameSlices(order_[k - 1], i)) {
        first_[groups] = i;  // the lowest index of its run
        count_[groups] = 0;
        ++groups;
      }
      groupOf_[i] = groups - 1;
      ++count_[groups - 1];
    }
    return groups;
  }

  Node node_;
  UniqueParams params_;
  OptionalAxisGeometry geometry_;
  // Per slice: order_ (sorted), groupOf_; per group: first_, count_, position_ (in Y).
  std::vector<int64_t> order_, groupOf_, first_, count_, position_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  UniqueParams p;
  if (!UniqueParams::parse(node, &p).isOk()) return nullptr;
  if (!dispatchNumeric(inputs[0]->dtype(), [](auto) {})) return nullptr;
  return std::make_unique<CpuUnique>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Unique, create);

}  // namespace tessera
