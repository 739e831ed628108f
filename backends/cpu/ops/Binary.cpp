// CPU Add Sub Mul Div and the variadic Max Min Sum Mean, with numpy broadcasting, for every
// numeric dtype (f16/bf16 compute in f32). Variadic ops fold left to right: the output is
// written by the first pair, then accumulated in place with each further input.
//
// Layout: when every input has the same shape and layout, or all but one input are single
// elements, the op runs on the physical buffer as it is (NC4HW4 included, padding lanes
// computed and ignored), like Unary, so packed graphs need no conversions around it. On
// NC4HW4 it also broadcasts across batch and spatial axes (see runsPacked); the commonest such
// case, a full tensor with a per-channel one ([N or 1, C, 1, 1]: biases, squeeze-excite
// scales), has its own loop (perChannel_), since the generic plan would walk it in spans of 4.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "ops/Binary.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

template <BinaryKind K, typename C>
inline C applyBinary(C a, C b) {
  if constexpr (K == BinaryKind::kAdd || K == BinaryKind::kSum || K == BinaryKind::kMean) {
    return wrapAdd(a, b);
  } else if constexpr (K == BinaryKind::kSub) {
    return wrapSub(a, b);
  } else if constexpr (K == BinaryKind::kMul) {
    return wrapMul(a, b);
  } else if constexpr (K == BinaryKind::kDiv) {
    return safeDiv(a, b);
  } else if constexpr (K == BinaryKind::kMax) {
    return maxPropagateNaN(a, b);
  } else {
    static_assert(K == BinaryKind::kMin, "Pow has its own execution");
    return minPropagateNaN(a, b);
  }
}

// Layouts under which the op can run on raw physical buffers (see the file comment).
bool runsOnPhysicalBuffers(const std::vector<Layout>& layouts, const Tensors& inputs,
                           Layout* layout) {
  int full = -1;  // the first input that is not a single element
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i]->elementCount() == 1) continue;
    if (full < 0) {
      full = static_cast<int>(i);
      continue;
    }
    if (inputs[i]->shape() != inputs[full]->shape() || layouts[i] != layouts[full]) return false;
  }
  if (full < 0) {
    *layout = Layout::kNCHW;  // nothing to gain: a single element
    return true;
  }
  // A single element of higher rank would give the output a different shape (and packing).
  Shape out = inputs[0]->shape();
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (!broadcastShapes(out, inputs[i]->shape(), &out)) return false;
  }
  if (out != inputs[full]->shape()) return false;
  *layout = layouts[full];
  return true;
}

// NC4HW4 with broadcasting (x * scale[N,C,1,1] in squeeze-excite blocks, bias adds): every
// input that is not a single element has the output's rank and channel count, so channel
// lanes line up and the other axes broadcast on the packed view [N, C/4, spatial..., 4].
bool runsPacked(const std::vector<Layout>& layouts, const Tensors& inputs) {
  Shape out = inputs[0]->shape();
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (!broadcastShapes(out, inputs[i]->shape(), &out)) return false;
  }
  if (out.size() < 2) return false;
  bool anyPacked = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i]->elementCount() == 1) continue;
    if (inputs[i]->shape().size() != out.size() || inputs[i]->shape()[1] != out[1]) return false;
    anyPacked = anyPacked || layouts[i] == Layout::kNC4HW4;
  }
  return anyPacked;
}

Shape packedView(const Shape& s) {
  Shape v{s[0], (s[1] + 3) / 4};
  v.insert(v.end(), s.begin() + 2, s.end());
  v.push_back(4);
  return v;
}

class CpuBinary final : public Execution {
 public:
  CpuBinary(Backend* b, BinaryKind kind) : Execution(b), kind_(kind) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors& inputs,
                     std::vector<Layout>* in, std::vector<Layout>* out) const override {
    Layout layout = Layout::kNCHW;
    if (runsOnPhysicalBuffers(available, inputs, &layout) && layout != Layout::kNCHW) {
      // Single-element inputs stay as they are: element 0 holds the value in any layout.
      *in = available;
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i]->elementCount() != 1) (*in)[i] = layout;
      }
      *out = {layout};
      return;
    }
    if (runsPacked(available, inputs)) {
      *in = available;
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i]->elementCount() != 1) (*in)[i] = Layout::kNC4HW4;
      }
      *out = {Layout::kNC4HW4};
      return;
    }
    in->assign(inputs.size(), Layout::kNCHW);
    *out = {Layout::kNCHW};
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& y = *outputs[0];
    const bool physical = y.layout() != Layout::kNCHW;
    // The shape each input is iterated with: logical, or a flat physical buffer.
    auto iterShape = [&](const Tensor* t) -> Shape {
      if (!physical) return t->shape();
      if (t->elementCount() == 1) return Shape{1};
      if (y.layout() == Layout::kNC4HW4) return packedView(t->shape());
      return Shape{physicalElementCount(t->shape(), t->layout())};
    };
    const Shape outShape = iterShape(&y);
    plans_.assign(inputs.size() > 1 ? inputs.size() - 1 : 0, BroadcastPlan());
    for (size_t k = 1; k < inputs.size(); ++k) {
      const Shape lhs = k == 1 ? iterShape(inputs[0]) : outShape;
      if (!plans_[k - 1].init({lhs, iterShape(inputs[k])}) ||
          plans_[k - 1].outputShape() != outShape) {
        return Status::internal("cannot broadcast input " + std::to_string(k) + " " +
                                inputs[k]->describe() + " to the output " + y.describe());
      }
    }
    if (inputs.size() == 1 && !plans_.empty()) return Status::internal("unexpected plan");
    perChannel_ = -1;
    if (y.layout() == Layout::kNC4HW4 && inputs.size() == 2) {
      for (int small = 0; small < 2; ++small) {
        const Shape& s = inputs[small]->shape();
        bool channelOnly = inputs[1 - small]->shape() == y.shape() && static_cast<int>(s.size()) == y.rank() &&
                           s.size() >= 2 && s[1] == y.shape()[1] && (s[0] == 1 || s[0] == y.shape()[0]);
        for (size_t d = 2; d < s.size(); ++d) channelOnly = channelOnly && s[d] == 1;
        if (channelOnly && inputs[small]->elementCount() > 1) {
          perChannel_ = small;
          smallBatched_ = s[0] != 1;
          break;
        }
      }
    }
    return Status::ok();
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    WorkEstimate w = Execution::work(inputs, outputs);
    w.flops = static_cast<double>(outputs[0]->elementCount()) * (inputs.size() > 1 ? inputs.size() - 1 : 1);
    return w;
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    Tensor& y = *outputs[0];
    if (inputs.size() == 1) {  // Max/Min/Sum/Mean of one input: a copy
      if (y.data() != inputs[0]->data()) std::memcpy(y.data(), inputs[0]->data(), y.byteSize());
      return Status::ok();
    }
    bool ok = true;
    dispatchElement(y.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
        ok = false;
      } else {
        ok = runKind<T>(inputs, y);
      }
    });
    if (!ok) return Status::unsupported(std::string("binary op on ") + dataTypeName(y.dtype()));
    if (kind_ == BinaryKind::kMean) scaleMean(static_cast<int>(inputs.size()), y);
    return Status::ok();
  }

 private:
  template <typename T>
  bool runKind(const Tensors& inputs, Tensor& y) {
    switch (kind_) {
      case BinaryKind::kAdd: case BinaryKind::kSum: case BinaryKind::kMean:
        fold<BinaryKind::kAdd, T>(inputs, y); return true;
      case BinaryKind::kSub: fold<BinaryKind::kSub, T>(inputs, y); return true;
      case BinaryKind::kMul: fold<BinaryKind::kMul, T>(inputs, y); return true;
      case BinaryKind::kDiv: fold<BinaryKind::kDiv, T>(inputs, y); return true;
      case BinaryKind::kMax: fold<BinaryKind::kMax, T>(inputs, y); return true;
      case BinaryKind::kMin: fold<BinaryKind::kMin, T>(inputs, y); return true;
      case BinaryKind::kPow: return false;
    }
    return false;
  }

  template <BinaryKind K, typename T>
  void fold(const Tensors& inputs, Tensor& y) {
    using E = Element<T>;
    using C = typename E::Compute;
    auto op = [](T a, T b) { return E::store(applyBinary<K, C>(E::load(a), E::load(b))); };
    ThreadPool& pool = cpuPool(*this);
    T* out = y.data<T>();
    if (perChannel_ == 0) {
      runPerChannel<T, true>(pool, inputs[1]->data<T>(), inputs[0]->data<T>(), y, op);
      return;
    }
    if (perChannel_ == 1) {
      runPerChannel<T, false>(pool, inputs[0]->data<T>(), inputs[1]->data<T>(), y, op);
      return;
    }
    runBinaryPlan(pool, plans_[0], inputs[0]->data<T>(), inputs[1]->data<T>(), out, op);
    for (size_t k = 2; k < inputs.size(); ++k) {
      runBinaryPlan(pool, plans_[k - 1], static_cast<const T*>(out), inputs[k]->data<T>(), out,
                    op);
    }
  }

  // y = op(full, small) (or op(small, full) when SmallFirst) on NC4HW4, small [N or 1, C, 1..]:
  // each channel block's 4 values repeat along the plane, so a 16-long copy of the pattern
  // lets the compiler vectorise the loop.
  template <typename T, bool SmallFirst, typename Op>
  void runPerChannel(ThreadPool& pool, const T* full, const T* small, Tensor& y, Op op) {
    const Shape& s = y.shape();
    const int64_t blocks = (s[1] + 3) / 4;
    int64_t spatial = 1;
    for (size_t d = 2; d < s.size(); ++d) spatial *= s[d];
    const int64_t planeSize = spatial * 4;
    T* out = y.data<T>();
    pool.parallelFor(s[0] * blocks * planeSize, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end;) {
        const int64_t plane = i / planeSize, planeEnd = std::min(end, (plane + 1) * planeSize);
        const int64_t n = plane / blocks, block = plane % blocks;
        const T* v = small + ((smallBatched_ ? n * blocks : 0) + block) * 4;
        T pattern[16];
        for (int k = 0; k < 16; ++k) pattern[k] = v[k & 3];
        auto one = [&](int64_t j, T b) { out[j] = SmallFirst ? op(b, full[j]) : op(full[j], b); };
        for (; i < planeEnd && (i & 15); ++i) one(i, pattern[i & 15]);
        for (; i + 16 <= planeEnd; i += 16)
          for (int k = 0; k < 16; ++k) one(i + k, pattern[k]);
        for (; i < planeEnd; ++i) one(i, pattern[i & 15]);
      }
    }, kElementwiseGrain);
  }

  // Mean is only defined for float types.
  void scaleMean(int count, Tensor& y) {
    const int64_t n = physicalElementCount(y.shape(), y.layout());
    dispatchElement(y.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using E = Element<T>;
      using C = typename E::Compute;
      if constexpr (std::is_floating_point_v<C>) {
        T* p = y.data<T>();
        const C inv = C(1) / C(count);
        cpuPool(*this).parallelFor(n, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) p[i] = E::store(E::load(p[i]) * inv);
        }, kElementwiseGrain);
      }
    });
  }

  BinaryKind kind_;
  std::vector<BroadcastPlan> plans_;  // plans_[k-1] folds input k into the running result
  int perChannel_ = -1;                // the per-channel input of a packed 2-input op, or -1
  bool smallBatched_ = false;          // that input has the batch axis (else [1, C, 1, ...])
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors& outputs) {
  BinaryParams p;
  if (!BinaryParams::parse(node, &p).isOk() || inputs.empty()) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (t == DataType::kBool || t == DataType::kString || t == DataType::kUnknown) return nullptr;
  for (const Tensor* in : inputs) {
    if (!in || in->dtype() != t) return nullptr;
  }
  if (p.kind == BinaryKind::kMean && !isFloat(t)) return nullptr;
  if (!BinaryParams::isVariadic(p.kind) && inputs.size() != 2) return nullptr;
  return std::make_unique<CpuBinary>(b, p.kind);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Add, create);
TESSERA_REGISTER_EXECUTION(kCPU, Sub, create);
TESSERA_REGISTER_EXECUTION(kCPU, Mul, create);
TESSERA_REGISTER_EXECUTION(kCPU, Div, create);
TESSERA_REGISTER_EXECUTION(kCPU, Max, create);
TESSERA_REGISTER_EXECUTION(kCPU, Min, create);
TESSERA_REGISTER_EXECUTION(kCPU, Sum, create);
TESSERA_REGISTER_EXECUTION(kCPU, Mean, create);

}  // namespace tessera
