// CPU MatMul: every distinct B matrix of the batch is packed (once at resize when B is
// constant) with alpha folded in, then each output matrix is one packed GEMM (and the
// optional bias, residual Z and fused activation, ops/MatMul.hpp, applied to its rows while
// they are in cache). Many small matrices run one per thread; few large ones are each split
// over the pool.
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/FusedActivationPass.hpp"
#include "backends/cpu/Gemm.hpp"
#include "ops/MatMul.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// Row-major strides of `dims` right-aligned into `rank` dimensions, 0 where broadcast.
std::vector<int64_t> broadcastStrides(const Shape& dims, size_t rank) {
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t d = dims.size() - 1 - i;
    strides[rank - 1 - i] = dims[d] == 1 ? 0 : stride;
    stride *= dims[d];
  }
  return strides;
}

class CpuMatMul final : public Execution {
 public:
  CpuMatMul(Backend* b, const FusedActivation& act, bool transB, float alpha)
      : Execution(b), act_(act), transB_(transB), alpha_(alpha) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    TESSERA_RETURN_IF_ERROR(resolveMatMul(inputs[0]->shape(), matMulB(inputs[1]->shape(), transB_), &shape_));
    const size_t rank = shape_.batch.size();
    batches_ = elementCount(shape_.batch);
    aBatches_ = elementCount(shape_.aBatch);
    bBatches_ = elementCount(shape_.bBatch);
    const std::vector<int64_t> as = broadcastStrides(shape_.aBatch, rank), bs = broadcastStrides(shape_.bBatch, rank);
    aIndex_.assign(batches_, 0);
    bIndex_.assign(batches_, 0);
    for (int64_t i = 0; i < batches_; ++i) {  // which A and B matrix feeds output matrix i
      int64_t rest = i;
      for (size_t d = rank; d-- > 0;) {
        const int64_t idx = rest % shape_.batch[d];
        rest /= shape_.batch[d];
        aIndex_[i] += idx * as[d];
        bIndex_[i] += idx * bs[d];
      }
    }
    // One B for every output matrix and A's matrices not broadcast: A's rows, and C's, lie
    // back to back, so all the matrices are one product of batches * M rows. A CRNN head's
    // [64, 1, 256] by [256, 6625] had been 64 one-row products, each reading all of B
    // (6.8 MB): 4.2 -> 1.4 ms (2 threads); a batch of 8 sequences through a transformer's
    // weights likewise.
    if (bBatches_ == 1 && aBatches_ == batches_ && batches_ > 1) {
      shape_.M *= batches_;
      batches_ = 1;
      aIndex_.assign(1, 0);
      bIndex_.assign(1, 0);
    }
    packedSize_ = gemmPackedBSize(shape_.K, shape_.N);
    const Tensor* b = inputs[1];
    weights_.plan(cpuPackedConstants(*this), {b},
                  "MatMul K" + std::to_string(shape_.K) + " N" + std::to_string(shape_.N) + " x" +
                      std::to_string(bBatches_) + (transB_ ? " transB" : "") + gemmScaleKey(alpha_),
                  packedSize_ * bBatches_, [this, b](float* dst) { packB(b->data<float>(), dst); });
    // One product at a time over the pool (onExecute): its A packed once in the step scratch.
    const int threads = cpuPool(*this).threads();
    GemmArgs g;
    g.M = shape_.M, g.N = shape_.N, g.K = shape_.K, g.lda = shape_.K;
    aScratch_ = batches_ < threads ? gemmAScratchFloats(g, threads) : 0;
    return cpuBackend(*this).reserveStepScratch(aScratch_, "MatMul's A (" + std::to_string(shape_.M) + " x " +
                                                               std::to_string(shape_.K) + ")");
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    const Tensor& a = *inputs[0];
    return matMulWork(inputs, outputs, a.rank() == 0 ? 1 : a.dim(a.rank() - 1));
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const float* packedB = weights_.get();
    const float* a = inputs[0]->data<float>();
    float* y = outputs[0]->data<float>();
    ThreadPool& pool = cpuPool(*this);
    float* aScratch = aScratch_ ? cpuBackend(*this).stepScratch() : nullptr;
    const MatMulShape& s = shape_;
    auto args = [&](int64_t i) {
      GemmArgs g;
      g.M = s.M;
      g.N = s.N;
      g.K = s.K;
      g.A = a + aIndex_[i] * s.M * s.K;
      g.lda = s.K;
      g.packedB = packedB + bIndex_[i] * packedSize_;
      g.C = y + i * s.M * s.N;
      g.ldc = s.N;
      g.aScratch = aScratch;
      return g;
    };
    const float* bias = inputs.size() > kMatMulBiasInput && inputs[kMatMulBiasInput]
                            ? inputs[kMatMulBiasInput]->data<float>() : nullptr;
    const float* z = inputs.size() > kMatMulResidualInput && inputs[kMatMulResidualInput]
                         ? inputs[kMatMulResidualInput]->data<float>() : nullptr;
    // The bias, Z and the activation go on each block of output matrix i a task has written,
    // while it is in cache.
    const bool finish = bias || z || act_.kind != FusedActivation::kNone;
    if (batches_ >= pool.threads()) {
      pool.parallelFor(batches_, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          gemmPackedTile(args(i), 0, s.M, 0, s.N);
          if (finish) Finish{this, y, bias, z, i}.block(0, s.M, 0, s.N);
        }
      }, 1);
    } else {
      for (int64_t i = 0; i < batches_; ++i) {
        GemmArgs g = args(i);
        const Finish f{this, y, bias, z, i};
        if (finish) {
          g.finish = [](const void* context, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
            static_cast<const Finish*>(context)->block(m0, m1, n0, n1);
          };
          g.finishContext = &f;
        }
        gemmPacked(pool, g);
      }
    }
    return Status::ok();
  }

 private:
  // Rows [m0, m1), columns [n0, n1) of output matrix i: the bias, Z, the activation.
  struct Finish {
    const CpuMatMul* self;
    float* y;
    const float* bias;
    const float* z;
    int64_t i;
    void block(int64_t m0, int64_t m1, int64_t n0, int64_t n1) const {
      const MatMulShape& s = self->shape_;
      for (int64_t m = m0; m < m1; ++m) {
        float* row = y + (i * s.M + m) * s.N;
        if (bias)
          for (int64_t n = n0; n < n1; ++n) row[n] += bias[n];
        if (z) {
          const float* zRow = z + (i * s.M + m) * s.N;
          for (int64_t n = n0; n < n1; ++n) row[n] += zRow[n];
        }
        applyFusedActivation(self->act_, row + n0, n1 - n0);
      }
    }
  };

  // Each B packed, times alpha: a pass over B rather than over the product, which is larger
  // for attention's q k^T (alpha 1/sqrt(d), B 64 x 197 a head, the product 197 x 197). Scaling
  // each output row after the product had taken 15-20% of ViT-S's q k^T op (batch 2, 12
  // heads, 2 threads, interleaved: 0.65 -> 0.545 ms).
  void packB(const float* b, float* packed) {
    const int64_t K = shape_.K, N = shape_.N;
    cpuPool(*this).parallelFor(bBatches_, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        gemmPackB(K, N, b + i * K * N, transB_ ? K : N, transB_, packed + i * packedSize_, alpha_);
    }, 1);
  }

  FusedActivation act_;
  bool transB_;  // B stored [.., N, K] (ops/MatMul.hpp)
  float alpha_;  // the product's scale (ops/MatMul.hpp)
  MatMulShape shape_;
  int64_t batches_ = 1, aBatches_ = 1, bBatches_ = 1, packedSize_ = 0;
  int64_t aScratch_ = 0;  // floats of the step scratch a product packs A into (gemmAScratchFloats)
  std::vector<int64_t> aIndex_, bIndex_;
  PackedWeights weights_;  // B packed: shared by the Session's plans when constant
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() < 2 || inputs.size() > 4 || !inputs[0] || !inputs[1]) return nullptr;
  for (const Tensor* t : inputs)
    if (t && t->dtype() != DataType::kF32) return nullptr;
  FusedActivation act;
  if (!FusedActivation::parse(node, &act).isOk()) return nullptr;
  return std::make_unique<CpuMatMul>(b, act, matMulTransB(node) && inputs[1]->rank() >= 2, matMulAlpha(node));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, MatMul, create);

}  // namespace tessera
