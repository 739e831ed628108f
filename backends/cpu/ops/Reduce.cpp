// CPU Reduce*. Neighbouring dimensions that are all kept or all reduced are merged first,
// which leaves two shapes of work:
//  - the innermost group is reduced: each output accumulates contiguous runs (row sums);
//  - the innermost group is kept: up to 64 neighbouring outputs accumulate side by side
//    (column sums), so every read is contiguous.
// Accumulation is in the input's float type (f32 or f64) or int64 for integers.
// LogSumExp takes the maximum first and sums exp(x - max) in a second pass.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "ops/Reduce.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

constexpr int64_t kLanes = 64;

template <typename Acc> Acc lowestValue() {
  return std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity()
                                                : std::numeric_limits<Acc>::lowest();
}
template <typename Acc> Acc highestValue() {
  return std::numeric_limits<Acc>::has_infinity ? std::numeric_limits<Acc>::infinity()
                                                : std::numeric_limits<Acc>::max();
}
template <typename Acc> bool isNan(Acc v) { return v != v; }  // false for integers

// One accumulation rule per kind: start value, step, and the final transform given the
// number of reduced elements. `shift` is the per-output maximum (LogSumExp only).
template <typename Acc, ReduceKind K> struct Rule;
template <typename Acc> struct Rule<Acc, ReduceKind::kSum> {
  static Acc init() { return 0; }
  static Acc step(Acc a, Acc x, Acc) { return a + x; }
  static Acc finish(Acc a, int64_t, Acc) { return a; }
};
template <typename Acc> struct Rule<Acc, ReduceKind::kMean> {
  static Acc init() { return 0; }
  static Acc step(Acc a, Acc x, Acc) { return a + x; }
  static Acc finish(Acc a, int64_t n, Acc) { return n ? a / static_cast<Acc>(n) : a; }
};
template <typename Acc> struct Rule<Acc, ReduceKind::kMax> {
  static Acc init() { return lowestValue<Acc>(); }
  static Acc step(Acc a, Acc x, Acc) { return (x > a || isNan(x)) ? x : a; }
  static Acc finish(Acc a, int64_t, Acc) { return a; }
};
template <typename Acc> struct Rule<Acc, ReduceKind::kMin> {
  static Acc init() { return highestValue<Acc>(); }
  static Acc step(Acc a, Acc x, Acc) { return (x < a || isNan(x)) ? x : a; }
  static Acc finish(Acc a, int64_t, Acc) { return a; }
};
template <typename Acc> struct Rule<Acc, ReduceKind::kProd> {
  static Acc init() { return 1; }
  static Acc step(Acc a, Acc x, Acc) { return a * x; }
  static Acc finish(Acc a, int64_t, Acc) { return a; }
};
template <typename Acc> struct Rule<Acc, ReduceKind::kL1> {
  static Acc init() { return 0; }
  static Acc step(Acc a, Acc x, Acc) { return a + (x < 0 ? -x : x); }
  static Acc finish(Acc a, int64_t, Acc) { return a; }
};
template <typename Acc> struct Rule<Acc, ReduceKind::kSumSquare> {
  static Acc init() { return 0; }
  static Acc step(Acc a, Acc x, Acc) { return a + x * x; }
  static Acc finish(Acc a, int64_t, Acc) { return a; }
};
template <typename Acc> struct Rule<Acc, ReduceKind::kL2> {
  static Acc init() { return 0; }
  static Acc step(Acc a, Acc x, Acc) { return a + x * x; }
  static Acc finish(Acc a, int64_t, Acc) { return static_cast<Acc>(std::sqrt(a)); }
};
template <typename Acc> struct Rule<Acc, ReduceKind::kLogSum> {
  static Acc init() { return 0; }
  static Acc step(Acc a, Acc x, Acc) { return a + x; }
  static Acc finish(Acc a, int64_t, Acc) { return static_cast<Acc>(std::log(a)); }
};
template <typename Acc> struct Rule<Acc, ReduceKind::kLogSumExp> {
  static Acc init() { return 0; }
  static Acc step(Acc a, Acc x, Acc shift) { return a + static_cast<Acc>(std::exp(x - shift)); }
  static Acc finish(Acc a, int64_t, Acc shift) {
    // All inputs -inf (or none): the shift is not finite, so exp(x - shift) was NaN.
    if (!std::isfinite(static_cast<double>(shift))) return shift;
    return shift + static_cast<Acc>(std::log(a));
  }
};

template <typename T> struct AccumulatorOf { using type = int64_t; };
template <> struct AccumulatorOf<float> { using type = float; };
template <> struct AccumulatorOf<double> { using type = double; };

// Calls f(offset) for every position of a multi-dimensional walk (extents, strides).
template <typename F>
void forEachOffset(const std::vector<int64_t>& extents, const std::vector<int64_t>& strides,
                   int64_t* index, F&& f) {
  const int rank = static_cast<int>(extents.size());
  for (int64_t e : extents)
    if (e == 0) return;
  for (int d = 0; d < rank; ++d) index[d] = 0;
  int64_t offset = 0;
  for (;;) {
    f(offset);
    int d = rank - 1;
    for (; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < extents[d]) break;
      offset -= index[d] * strides[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

class CpuReduce final : public Execution {
 public:
  CpuReduce(Backend* b, const Node& node, const ReduceParams& p)
      : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Shape& in = inputs[0]->shape();
    std::vector<bool> reduced;
    TESSERA_RETURN_IF_ERROR(resolveReduceAxes(node_, params_, in, inputs.size() > 1 ? inputs[1] : nullptr,
                                              &reduced, &identity_));
    // Merge neighbouring dims of the same kind (extent-1 dims are dropped: they change
    // neither order nor counts).
    struct Group { int64_t extent, stride; bool reduced; };
    std::vector<Group> groups;
    int64_t stride = 1;
    for (size_t i = in.size(); i-- > 0;) {
      if (in[i] != 1) {
        if (!groups.empty() && groups.back().reduced == reduced[i])
          groups.back().extent *= in[i];
        else
          groups.push_back({in[i], stride, reduced[i]});
      }
      stride *= in[i];
    }
    std::reverse(groups.begin(), groups.end());
    keptExtents_.clear(); keptStrides_.clear(); redExtents_.clear(); redStrides_.clear();
    contiguous_ = 1;
    rowsReduced_ = !groups.empty() && groups.back().reduced;
    if (!groups.empty()) {
      contiguous_ = groups.back().extent;  // the innermost group: stride 1
      groups.pop_back();
    }
    for (const Group& g : groups) {
      (g.reduced ? redExtents_ : keptExtents_).push_back(g.extent);
      (g.reduced ? redStrides_ : keptStrides_).push_back(g.stride);
    }
    outerCount_ = elementCount(keptExtents_);
    const int64_t outCount = outputs[0]->elementCount();
    reduceCount_ = outCount ? inputs[0]->elementCount() / outCount : 0;
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const int64_t outCount = outputs[0]->elementCount();
    if (outCount == 0) return Status::ok();
    if (identity_) {
      std::memcpy(outputs[0]->data(), inputs[0]->data(),
                  static_cast<size_t>(outCount) * dataTypeSize(inputs[0]->dtype()));
      return Status::ok();
    }
    if (inputs[0]->elementCount() == 0) return fillEmpty(outputs[0]);
    dispatchNumeric(inputs[0]->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same<T, bool>::value)
        byKind<T>(inputs[0]->data<T>(), outputs[0]->data<T>());
    });
    return Status::ok();
  }

 private:
  template <typename T>
  void byKind(const T* x, T* y) {
    using Acc = typename AccumulatorOf<T>::type;
    switch (params_.kind) {
      case ReduceKind::kSum: run<T, Rule<Acc, ReduceKind::kSum>>(x, y, false); break;
      case ReduceKind::kMean: run<T, Rule<Acc, ReduceKind::kMean>>(x, y, false); break;
      case ReduceKind::kMax: run<T, Rule<Acc, ReduceKind::kMax>>(x, y, false); break;
      case ReduceKind::kMin: run<T, Rule<Acc, ReduceKind::kMin>>(x, y, false); break;
      case ReduceKind::kProd: run<T, Rule<Acc, ReduceKind::kProd>>(x, y, false); break;
      case ReduceKind::kL1: run<T, Rule<Acc, ReduceKind::kL1>>(x, y, false); break;
      case ReduceKind::kL2: run<T, Rule<Acc, ReduceKind::kL2>>(x, y, false); break;
      case ReduceKind::kSumSquare: run<T, Rule<Acc, ReduceKind::kSumSquare>>(x, y, false); break;
      case ReduceKind::kLogSum: run<T, Rule<Acc, ReduceKind::kLogSum>>(x, y, false); break;
      case ReduceKind::kLogSumExp: run<T, Rule<Acc, ReduceKind::kLogSumExp>>(x, y, true); break;
    }
  }

  // withShift: first find each output's maximum (the shift), then accumulate with it.
  template <typename T, typename R>
  void run(const T* x, T* y, bool withShift) {
    using Acc = typename AccumulatorOf<T>::type;
    using MaxRule = Rule<Acc, ReduceKind::kMax>;
    const int64_t n = reduceCount_;
    if (rowsReduced_) {
      const int64_t row = contiguous_;
      const int64_t minTasks = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, n));
      cpuPool(*this).parallelFor(outerCount_, [&](int64_t begin, int64_t end) {
        std::vector<int64_t> index(keptExtents_.size() + redExtents_.size());
        for (int64_t o = begin; o < end; ++o) {
          const T* base = x + keptOffset(o, index.data());
          Acc shift = 0;
          if (withShift) {
            Acc m = MaxRule::init();
            forEachOffset(redExtents_, redStrides_, index.data(), [&](int64_t off) {
              for (int64_t i = 0; i < row; ++i) m = MaxRule::step(m, static_cast<Acc>(base[off + i]), 0);
            });
            shift = m;
          }
          Acc a = R::init();
          forEachOffset(redExtents_, redStrides_, index.data(), [&](int64_t off) {
            for (int64_t i = 0; i < row; ++i) a = R::step(a, static_cast<Acc>(base[off + i]), shift);
          });
          y[o] = static_cast<T>(R::finish(a, n, shift));
        }
      }, minTasks);
      return;
    }
    // Column form: outputs [outer, contiguous_], lanes of up to kLanes outputs at once.
    const int64_t width = contiguous_;
    const int64_t blocks = (width + kLanes - 1) / kLanes;
    const int64_t minTasks = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, n * kLanes));
    cpuPool(*this).parallelFor(outerCount_ * blocks, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> index(keptExtents_.size() + redExtents_.size());
      Acc acc[kLanes], shift[kLanes];
      for (int64_t t = begin; t < end; ++t) {
        const int64_t o = t / blocks, lane0 = (t % blocks) * kLanes;
        const int64_t lanes = std::min(kLanes, width - lane0);
        const T* base = x + keptOffset(o, index.data()) + lane0;
        for (int64_t l = 0; l < lanes; ++l) shift[l] = 0;
        if (withShift) {
          for (int64_t l = 0; l < lanes; ++l) shift[l] = MaxRule::init();
          forEachOffset(redExtents_, redStrides_, index.data(), [&](int64_t off) {
            for (int64_t l = 0; l < lanes; ++l)
              shift[l] = MaxRule::step(shift[l], static_cast<Acc>(base[off + l]), 0);
          });
        }
        for (int64_t l = 0; l < lanes; ++l) acc[l] = R::init();
        forEachOffset(redExtents_, redStrides_, index.data(), [&](int64_t off) {
          for (int64_t l = 0; l < lanes; ++l)
            acc[l] = R::step(acc[l], static_cast<Acc>(base[off + l]), shift[l]);
        });
        T* out = y + o * width + lane0;
        for (int64_t l = 0; l < lanes; ++l) out[l] = static_cast<T>(R::finish(acc[l], n, shift[l]));
      }
    }, minTasks);
  }

  // Source offset of the first element read for kept (outer) index o.
  int64_t keptOffset(int64_t o, int64_t* scratch) const {
    int64_t offset = 0;
    for (size_t d = keptExtents_.size(); d-- > 0;) {
      scratch[d] = o % keptExtents_[d];
      o /= keptExtents_[d];
      offset += scratch[d] * keptStrides_[d];
    }
    return offset;
  }

  // Reducing zero elements gives the rule's start value (0 for sums, 1 for products...).
  Status fillEmpty(Tensor* out) {
    const int64_t count = out->elementCount();
    dispatchNumeric(out->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same<T, bool>::value) {
        using Acc = typename AccumulatorOf<T>::type;
        Acc v = 0;
        switch (params_.kind) {
          case ReduceKind::kProd: v = 1; break;
          case ReduceKind::kMax: v = lowestValue<Acc>(); break;
          case ReduceKind::kMin: v = highestValue<Acc>(); break;
          case ReduceKind::kLogSum:
          case ReduceKind::kLogSumExp: v = lowestValue<Acc>(); break;
          default: break;
        }
        std::fill(out->data<T>(), out->data<T>() + count, static_cast<T>(v));
      }
    });
    return Status::ok();
  }

  Node node_;
  ReduceParams params_;
  bool identity_ = false;
  bool rowsReduced_ = false;  // the innermost merged group is reduced
  int64_t contiguous_ = 1;    // extent of the innermost merged group
  std::vector<int64_t> keptExtents_, keptStrides_, redExtents_, redStrides_;
  int64_t outerCount_ = 1, reduceCount_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  ReduceParams p;
  if (!ReduceParams::parse(node, &p).isOk()) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (t == DataType::kF32 || t == DataType::kF64) return std::make_unique<CpuReduce>(b, node, p);
  // Integers: the rules that stay exact in integer arithmetic.
  const bool integerKind = p.kind == ReduceKind::kSum || p.kind == ReduceKind::kMean ||
                           p.kind == ReduceKind::kMax || p.kind == ReduceKind::kMin ||
                           p.kind == ReduceKind::kProd || p.kind == ReduceKind::kL1 ||
                           p.kind == ReduceKind::kSumSquare;
  if (integerKind && isInteger(t)) return std::make_unique<CpuReduce>(b, node, p);
  return nullptr;
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, ReduceSum, create);
TESSERA_REGISTER_EXECUTION(kCPU, ReduceMean, create);
TESSERA_REGISTER_EXECUTION(kCPU, ReduceMax, create);
TESSERA_REGISTER_EXECUTION(kCPU, ReduceMin, create);
TESSERA_REGISTER_EXECUTION(kCPU, ReduceProd, create);
TESSERA_REGISTER_EXECUTION(kCPU, ReduceL1, create);
TESSERA_REGISTER_EXECUTION(kCPU, ReduceL2, create);
TESSERA_REGISTER_EXECUTION(kCPU, ReduceSumSquare, create);
TESSERA_REGISTER_EXECUTION(kCPU, ReduceLogSumExp, create);
TESSERA_REGISTER_EXECUTION(kCPU, ReduceLogSum, create);

}  // namespace tessera
