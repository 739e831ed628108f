// CPU Einsum (semantics: ops/Einsum.hpp) on f32, f64, int32 and int64. The plan, made at
// resize from the letters' extents and strides, takes one of two routes:
// - two operands: the letters split into batch (in both operands and the output), M (only
//   the first and the output), N (only the second and the output) and K (summed). Each
//   operand is gathered by strides into [batch, M, K] and [batch, K, N] (diagonals and
//   broadcasting come free), the batched product runs on the project GEMM (f32) or a plain
//   row loop, and the result is scattered into the output unless it is already in order;
// - one or three and more operands: a strided loop per output element over every
//   assignment of the summed letters.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/CacheAligned.hpp"
#include "backends/cpu/Gemm.hpp"
#include "ops/Einsum.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// Offsets of every index of `letters` (row-major, the last fastest) under `strides`.
std::vector<int64_t> offsetTable(const std::vector<int>& letters, const EinsumDims& d, const std::vector<int64_t>& strides) {
  std::vector<int64_t> table(1, 0);
  for (int l : letters) {
    std::vector<int64_t> next;
    next.reserve(table.size() * d.size[l]);
    for (int64_t base : table)
      for (int64_t i = 0; i < d.size[l]; ++i) next.push_back(base + i * strides[l]);
    table.swap(next);
  }
  return table;
}

template <typename T>
class CpuEinsum final : public Execution {
 public:
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
  CpuEinsum(Backend* b, const Node& node, const EinsumParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    std::vector<Shape> shapes;
    for (const Tensor* t : inputs) shapes.push_back(t->shape());
    TESSERA_RETURN_IF_ERROR(resolveEinsum(node_, params_, shapes, &d_));
    ops_ = inputs.size();
    ptrs_.assign(ops_, nullptr);
    if (ops_ == 2) planProduct();
    else planLoop();
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    for (size_t i = 0; i < ops_; ++i) ptrs_[i] = inputs[i]->data<T>();
    T* y = outputs[0]->data<T>();
    if (ops_ == 2) runProduct(y);
    else runLoop(y);
    return Status::ok();
  }

 private:
  // ---- Two operands: a batched matrix product.
  void planProduct() {
    std::vector<int> batch, m, n, k;
    std::vector<bool> inOutput(d_.letters, false);
    for (int l : d_.output) inOutput[l] = true;
    for (int l : d_.output) {
      const bool a = d_.present[0][l], b = d_.present[1][l];
      (a && b ? batch : a ? m : n).push_back(l);
    }
    for (int l = 0; l < d_.letters; ++l)
      if (!inOutput[l]) k.push_back(l);
    std::vector<int64_t> outStrides(d_.letters, 0);
    int64_t stride = 1;
    for (size_t i = d_.output.size(); i-- > 0;) {
      outStrides[d_.output[i]] = stride;
      stride *= d_.size[d_.output[i]];
    }
    aBatch_ = offsetTable(batch, d_, d_.strides[0]);
    aM_ = offsetTable(m, d_, d_.strides[0]);
    aK_ = offsetTable(k, d_, d_.strides[0]);
    bBatch_ = offsetTable(batch, d_, d_.strides[1]);
    bK_ = offsetTable(k, d_, d_.strides[1]);
    bN_ = offsetTable(n, d_, d_.strides[1]);
    B_ = static_cast<int64_t>(aBatch_.size());
    M_ = static_cast<int64_t>(aM_.size());
    K_ = static_cast<int64_t>(aK_.size());
    N_ = static_cast<int64_t>(bN_.size());
    std::vector<int> order = batch;
    order.insert(order.end(), m.begin(), m.end());
    order.insert(order.end(), n.begin(), n.end());
    inPlace_ = order == d_.output;  // the product's [batch, M, N] is the output's layout
    if (!inPlace_) {
      cBatch_ = offsetTable(batch, d_, outStrides);
      cM_ = offsetTable(m, d_, outStrides);
      cN_ = offsetTable(n, d_, outStrides);
    }
    a_.assign(static_cast<size_t>(B_ * M_ * K_), T(0));
    b_.assign(static_cast<size_t>(B_ * K_ * N_), T(0));
    c_.assign(inPlace_ ? 0 : static_cast<size_t>(B_ * M_ * N_), T(0));
    if constexpr (std::is_same_v<T, float>) {
      packedSize_ = gemmPackedBSize(K_, N_);
      packed_.assign(static_cast<size_t>(packedSize_ * B_), 0.f);
    }
  }

  void runProduct(T* y) {
    ThreadPool& pool = cpuPool(*this);
    const T* A = ptrs_[0];
    const T* Bp = ptrs_[1];
    pool.parallelFor(B_ * M_, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* src = A + aBatch_[r / M_] + aM_[r % M_];
        T* dst = a_.data() + r * K_;
        for (int64_t kk = 0; kk < K_; ++kk) dst[kk] = src[aK_[kk]];
      }
    });
    pool.parallelFor(B_ * K_, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* src = Bp + bBatch_[r / K_] + bK_[r % K_];
        T* dst = b_.data() + r * N_;
        for (int64_t nn = 0; nn < N_; ++nn) dst[nn] = src[bN_[nn]];
      }
    });
    T* C = inPlace_ ? y : c_.data();
    if (K_ == 0) {
      std::fill(C, C + B_ * M_ * N_, T(0));
    } else if constexpr (std::is_same_v<T, float>) {
      gemmBatches(pool, C);
    } else {
      pool.parallelFor(B_ * M_, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const T* arow = a_.data() + r * K_;
          const T* bmat = b_.data() + (r / M_) * K_ * N_;
          T* crow = C + r * N_;
          std::fill(crow, crow + N_, T(0));
          for (int64_t kk = 0; kk < K_; ++kk) {
            const T av = arow[kk];
            const T* brow = bmat + kk * N_;
            for (int64_t nn = 0; nn < N_; ++nn) crow[nn] += av * brow[nn];
          }
        }
      });
    }
    if (inPlace_) return;
    pool.parallelFor(B_ * M_, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* src = c_.data() + r * N_;
        T* dst = y + cBatch_[r / M_] + cM_[r % M_];
        for (int64_t nn = 0; nn < N_; ++nn) dst[cN_[nn]] = src[nn];
      }
    });
  }

  // f32: pack each batch's [K, N] for the GEMM, then one product per batch (as MatMul).
  void gemmBatches(ThreadPool& pool, float* C) {
    pool.parallelFor(B_, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        gemmPackB(K_, N_, b_.data() + i * K_ * N_, N_, false, packed_.data() + i * packedSize_);
    }, 1);
    auto args = [&](int64_t i) {
      GemmArgs g;
      g.M = M_;
      g.N = N_;
      g.K = K_;
      g.A = a_.data() + i * M_ * K_;
      g.lda = K_;
      g.packedB = packed_.data() + i * packedSize_;
      g.C = C + i * M_ * N_;
      g.ldc = N_;
      return g;
    };
    if (B_ >= pool.threads()) {
      pool.parallelFor(B_, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) gemmPackedTile(args(i), 0, M_, 0, N_);
      }, 1);
    } else {
      for (int64_t i = 0; i < B_; ++i) gemmPacked(pool, args(i));
    }
  }

  // ---- Any number of operands: a strided loop.
  void planLoop() {
    std::vector<bool> inOutput(d_.letters, false);
    for (int l : d_.output) inOutput[l] = true;
    outExtent_.clear();
    outStride_.clear();
    sumExtent_.clear();
    sumStride_.clear();
    for (int l : d_.output) {
      outExtent_.push_back(d_.size[l]);
      for (size_t i = 0; i < ops_; ++i) outStride_.push_back(d_.strides[i][l]);
    }
    sumCount_ = 1;
    for (int l = 0; l < d_.letters; ++l) {
      if (inOutput[l]) continue;
      sumExtent_.push_back(d_.size[l]);
      sumCount_ *= d_.size[l];
      for (size_t i = 0; i < ops_; ++i) sumStride_.push_back(d_.strides[i][l]);
    }
    outCount_ = elementCount(d_.outputShape);
    tasks_ = std::max<int64_t>(1, std::min<int64_t>(cpuPool(*this).threads(), outCount_));
    perTask_ = static_cast<int64_t>(2 * ops_ + sumExtent_.size());
    loopScratch_.assign(static_cast<size_t>(tasks_ * perTask_), 0);
  }

  void runLoop(T* y) {
    const size_t ops = ops_, sums = sumExtent_.size();
    cpuPool(*this).parallelFor(tasks_, [&](int64_t tBegin, int64_t tEnd) {
      for (int64_t t = tBegin; t < tEnd; ++t) {
        int64_t* base = loopScratch_.data() + t * perTask_;
        int64_t* off = base + ops;
        int64_t* counter = off + ops;
        for (int64_t o = outCount_ * t / tasks_; o < outCount_ * (t + 1) / tasks_; ++o) {
          std::fill(base, base + ops, 0);
          int64_t rest = o;
          for (size_t dd = outExtent_.size(); dd-- > 0;) {
            const int64_t idx = rest % outExtent_[dd];
            rest /= outExtent_[dd];
            for (size_t i = 0; i < ops; ++i) base[i] += idx * outStride_[dd * ops + i];
          }
          Acc acc = 0;
          if (sumCount_ > 0) {
            std::copy(base, base + ops, off);
            std::fill(counter, counter + sums, 0);
            while (true) {
              Acc prod = 1;
              for (size_t i = 0; i < ops; ++i) prod *= static_cast<Acc>(ptrs_[i][off[i]]);
              acc += prod;
              size_t s = sums;
              while (s-- > 0) {  // odometer: the last summed letter fastest
                for (size_t i = 0; i < ops; ++i) off[i] += sumStride_[s * ops + i];
                if (++counter[s] < sumExtent_[s]) break;
                for (size_t i = 0; i < ops; ++i) off[i] -= sumStride_[s * ops + i] * sumExtent_[s];
                counter[s] = 0;
              }
              if (s == static_cast<size_t>(-1)) break;
            }
          }
          y[o] = static_cast<T>(acc);
        }
      }
    }, 1);
  }

  Node node_;
  EinsumParams params_;
  EinsumDims d_;
  size_t ops_ = 0;
  std::vector<const T*> ptrs_;
  // Product route.
  int64_t B_ = 0, M_ = 0, N_ = 0, K_ = 0, packedSize_ = 0;
  bool inPlace_ = false;
  std::vector<int64_t> aBatch_, aM_, aK_, bBatch_, bK_, bN_, cBatch_, cM_, cN_;
  std::vector<T> a_, b_, c_;
  AlignedFloats packed_;
  // Loop route.
  std::vector<int64_t> outExtent_, outStride_, sumExtent_, sumStride_;  // strides: [letter][operand]
  int64_t outCount_ = 0, sumCount_ = 1, tasks_ = 1, perTask_ = 0;
  std::vector<int64_t> loopScratch_;  // per task: base and current offsets, counters
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  EinsumParams p;
  if (!EinsumParams::parse(node, &p).isOk() || inputs.empty()) return nullptr;
  for (const Tensor* t : inputs)
    if (!t || t->dtype() != inputs[0]->dtype()) return nullptr;
  switch (inputs[0]->dtype()) {
    case DataType::kF32: return std::make_unique<CpuEinsum<float>>(b, node, p);
    case DataType::kF64: return std::make_unique<CpuEinsum<double>>(b, node, p);
    case DataType::kI32: return std::make_unique<CpuEinsum<int32_t>>(b, node, p);
    case DataType::kI64: return std::make_unique<CpuEinsum<int64_t>>(b, node, p);
    default: return nullptr;
  }
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Einsum, create);

}  // namespace tessera
