// CPU RNN, GRU and LSTM on f32 (semantics: ops/Recurrent.hpp).
//
// W of every direction is packed as one [input, D*G*H] matrix, so one GEMM projects all
// steps of X (seq*batch rows) at once; a single forward direction over a sequence-major X
// projects a few steps at a time instead, just before they run (chunkSteps_). Each step
// multiplies the batch's hidden state by R, then runs the gate math with the vector
// activations. R is packed per direction in hidden slices: slice q holds every gate's columns
// of the hidden units [j0, j0 + n), so one thread takes a slice's product and then the cells
// of those units for the whole batch, with no wait between the two (the state is
// double-buffered: the next step's product reads all of it). Constant W and R are packed
// once, at resize, and shared by the Session's plans.
// Bidirectional runs its two directions on two threads, each with one slice.
// LSTM's W is packed with its columns in the slices' order and its projection adds the
// biases, so that where every entry of a step is at one time, the step's product accumulates
// straight onto the projected rows (ONNX Runtime's LSTM does likewise): no pass adds them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/CacheAligned.hpp"
#include "backends/cpu/Gemm.hpp"
#include "backends/cpu/VectorMath.hpp"
#include "ops/Recurrent.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

constexpr int64_t kSplitStepWork = 1 << 15;  // multiply-adds of a step product worth two threads
constexpr int64_t kMinSliceUnits = 16;       // hidden units of a slice, at least
// Projected inputs a chunk, at most (a forward direction): the buffer stays this size however
// long the sequence (a batch-32 LSTM of 1024 gate columns had held 6.5 MB for 50 steps, 131 MB
// for 1000), and each chunk is still in cache when its steps read it (as fast within 1%).
constexpr int64_t kChunkBytes = 512 << 10;

// x = a(x), in place.
void activate(const RecurrentActivation& a, float* x, int64_t n) {
  const float alpha = a.alpha, beta = a.beta;
  switch (a.kind) {
    case RecurrentActivation::kTanh: vectorTanh(x, x, n); return;
    case RecurrentActivation::kSigmoid: vectorSigmoid(x, x, n); return;
    case RecurrentActivation::kElu: vectorElu(x, x, n, alpha); return;
    case RecurrentActivation::kSoftplus: vectorSoftplus(x, x, n); return;
    case RecurrentActivation::kScaledTanh:
      for (int64_t i = 0; i < n; ++i) x[i] *= beta;
      vectorTanh(x, x, n);
      for (int64_t i = 0; i < n; ++i) x[i] *= alpha;
      return;
    case RecurrentActivation::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > 0.f ? x[i] : 0.f;
      return;
    case RecurrentActivation::kAffine:
      for (int64_t i = 0; i < n; ++i) x[i] = alpha * x[i] + beta;
      return;
    case RecurrentActivation::kLeakyRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] >= 0.f ? x[i] : alpha * x[i];
      return;
    case RecurrentActivation::kThresholdedRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > alpha ? x[i] : 0.f;
      return;
    case RecurrentActivation::kHardSigmoid:
      for (int64_t i = 0; i < n; ++i) x[i] = std::fmin(1.f, std::fmax(0.f, alpha * x[i] + beta));
      return;
    case RecurrentActivation::kSoftsign:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] / (1.f + std::fabs(x[i]));
      return;
  }
}

class CpuRecurrent final : public Execution {
 public:
  CpuRecurrent(Backend* b, const Node& node, const RecurrentParams& p)
      : Execution(b), params_(p), label_(node.label()) {
    for (size_t i = 0; i < 3; ++i) wantOutput_[i] = i < node.outputs.size() && !node.outputs[i].empty();
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    (void)outputs;
    const Tensor& x = *inputs[kRnnX];
    const bool batchMajor = params_.layout == 1;
    seq_ = x.dim(batchMajor ? 1 : 0);
    batch_ = x.dim(batchMajor ? 0 : 1);
    input_ = x.dim(2);
    D_ = params_.numDirections();
    H_ = inputs[kRnnR]->dim(2);
    G_ = params_.gates();
    GH_ = G_ * H_;
    // GRU without linear_before_reset multiplies r (.) H by R's h block, not H: that block is
    // a second product, after z and r.
    splitH_ = params_.kind == RecurrentKind::kGru && !params_.linearBeforeReset;
    planSlices();

    const Tensor* w = inputs[kRnnW];
    const Tensor* r = inputs[kRnnR];
    const std::string sizes = " input" + std::to_string(input_) + " H" + std::to_string(H_) + " D" +
                              std::to_string(D_) + " G" + std::to_string(G_);
    const int64_t H = H_, GH = GH_, D = D_, rBlock = rBlock_;
    const int productGates = splitH_ ? 2 : G_;
    const bool splitH = splitH_;
    const std::vector<Slice> slices = slices_;
    std::string layout = " slices";
    for (const Slice& sl : slices) layout += " " + std::to_string(sl.n);
    // W [D*G*H, input] is B transposed: one packing serves every direction. LSTM's rows (its
    // projection's columns) gathered in the slices' order first.
    const int64_t K = input_, N = D_ * GH_;
    const bool sliceOrder = lstm();
    wPacked_.plan(cpuPackedConstants(*this), {w}, "Recurrent W" + sizes + (sliceOrder ? layout : ""),
                  gemmPackedBSize(K, N), [=](float* dst) {
                    if (!sliceOrder) return gemmPackB(K, N, w->data<float>(), K, true, dst);
                    std::vector<float> local;
                    float* rows = gatherRoom(static_cast<size_t>(N * K), local);
                    toSliceOrder(slices, D, H, w->data<float>(), K, rows);
                    gemmPackB(K, N, rows, K, true, dst);
                  });
    rPacked_.plan(cpuPackedConstants(*this), {r}, "Recurrent R" + sizes + layout + (splitH ? " split" : ""),
                  static_cast<size_t>(D * rBlock), [=](float* dst) {
                    // A slice's rows of R (gate g's units [j0, j0 + n)), gathered, then packed.
                    std::vector<float> local;
                    auto pack = [&](const float* rd, int g0, int gates, const Slice& sl, float* out) {
                      float* rows = gatherRoom(static_cast<size_t>(gates * sl.n * H), local);
                      for (int g = 0; g < gates; ++g)
                        std::memcpy(rows + g * sl.n * H, rd + ((g0 + g) * H + sl.j0) * H, sizeof(float) * sl.n * H);
                      gemmPackB(H, gates * sl.n, rows, H, true, out);
                    };
                    for (int64_t d = 0; d < D; ++d) {
                      const float* rd = r->data<float>() + d * GH * H;
                      for (const Slice& sl : slices) {
                        pack(rd, 0, productGates, sl, dst + d * rBlock + sl.packed);
                        if (splitH) pack(rd, 2, 1, sl, dst + d * rBlock + sl.packedH);
                      }
                    }
                  });

    // Weights packed on every run (not constant) gather their rows in a buffer of the plan's:
    // nothing allocated while running.
    size_t gatherFloats = 0;
    if (!wPacked_.shared() && sliceOrder) gatherFloats = static_cast<size_t>(N * K);
    if (!rPacked_.shared())
      for (const Slice& sl : slices_)
        gatherFloats = std::max(gatherFloats, static_cast<size_t>(productGates * sl.n * H));
    gather_.assign(gatherFloats, 0.f);

    // Scratch: the projected inputs (of a chunk of steps, or all), then per direction its
    // state and step buffers. Chunks where step s reads the rows of time s alone: one forward
    // direction, X sequence-major.
    const bool chunked = D_ == 1 && !params_.reversed(0) && params_.layout == 0;
    const int64_t stepBytes = batch_ * GH_ * static_cast<int64_t>(sizeof(float));
    chunkSteps_ = chunked ? std::clamp<int64_t>(kChunkBytes / std::max<int64_t>(stepBytes, 1), 1, seq_) : seq_;
    projected_.assign(static_cast<size_t>(std::max<int64_t>(chunkSteps_, 1) * batch_ * D_ * GH_), 0.f);
    gateBias_.assign(static_cast<size_t>(lstm() ? D_ * GH_ : 0), 0.f);
    dirFloats_ = batch_ * (3 * H_ + GH_ + 2 * H_) + GH_ + H_;
    scratch_.assign(static_cast<size_t>(D_ * dirFloats_), 0.f);
    lengths_.assign(static_cast<size_t>(batch_), 0);
    return Status::ok();
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    WorkEstimate e = Execution::work(inputs, outputs);
    e.flops = 2.0 * double(seq_ * batch_ * D_ * GH_) * double(input_ + H_);
    return e;
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    TESSERA_RETURN_IF_ERROR(readLengths(inputs));
    readBias(inputs);
    wp_ = wPacked_.get();  // packed now unless constant: once a run, for every chunk
    const float* rp = rPacked_.get();

    chunkStart_ = 0;
    if (chunkSteps_ >= seq_) project(inputs, 0, seq_);

    if (D_ == 1) {
      runDirection(0, rp, inputs, outputs);
    } else {
      // Only `this` captured: the std::function holds it without allocating.
      run_ = {rp, &inputs, &outputs};
      cpuPool(*this).parallelFor(D_, [this](int64_t begin, int64_t end) {
        for (int64_t d = begin; d < end; ++d)
          runDirection(static_cast<int>(d), run_.packedR + d * rBlock_, *run_.inputs, *run_.outputs);
      });
    }
    return Status::ok();
  }

 private:
  // Hidden units [j0, j0 + n): their gates' columns of R packed at `packed` (GRU split: z and
  // r there, h at `packedH`), their pre-activations at `col` of a row of the gate buffer,
  // gate g at col + g * n.
  struct Slice {
    int64_t j0 = 0, n = 0, col = 0, packed = 0, packedH = 0;
  };

  // One slice per thread where a step's product is worth splitting (one direction: two
  // directions already take a thread each), units shared evenly in multiples of 4.
  void planSlices() {
    const int64_t threads = cpuPool(*this).threads();
    int64_t count = 1;
    if (D_ == 1 && threads > 1 && batch_ * GH_ * H_ >= kSplitStepWork)
      count = std::max<int64_t>(1, std::min<int64_t>(threads, H_ / kMinSliceUnits));
    const int64_t unit = (H_ + count - 1) / count;
    const int64_t width = count == 1 ? H_ : (unit + 3) / 4 * 4;
    const int productGates = splitH_ ? 2 : G_;
    slices_.clear();
    rBlock_ = 0;
    for (int64_t j0 = 0; j0 < H_; j0 += width) {
      Slice sl;
      sl.j0 = j0;
      sl.n = std::min(width, H_ - j0);
      sl.col = j0 * productGates;
      sl.packed = rBlock_;
      rBlock_ += gemmPackedBSize(H_, productGates * sl.n);
      if (splitH_) {
        sl.packedH = rBlock_;
        rBlock_ += gemmPackedBSize(H_, sl.n);
      }
      slices_.push_back(sl);
    }
    gateCols_ = productGates * H_;
  }

  static const Tensor* optional(const Tensors& inputs, int i) {
    return static_cast<size_t>(i) < inputs.size() && inputs[i] && inputs[i]->elementCount() > 0 ? inputs[i] : nullptr;
  }

  Status readLengths(const Tensors& inputs) {
    const Tensor* lens = optional(inputs, kRnnSequenceLens);
    maxLength_ = 0;
    for (int64_t b = 0; b < batch_; ++b) {
      int64_t n = seq_;
      if (lens) n = lens->dtype() == DataType::kI64 ? lens->data<int64_t>()[b] : lens->data<int32_t>()[b];
      if (n < 0 || n > seq_)
        return Status::invalid(label_ + ": sequence_lens[" + std::to_string(b) + "] = " + std::to_string(n) +
                               " is outside [0, " + std::to_string(seq_) + "] (the sequence length)");
      lengths_[b] = n;
      maxLength_ = std::max(maxLength_, n);
    }
    return Status::ok();
  }

  // Per direction: GH biases added to the gate pre-activations (W's + R's), then H more for
  // GRU with linear_before_reset, whose h block takes R's bias inside r (.) (...).
  void readBias(const Tensors& inputs) {
    const Tensor* b = optional(inputs, kRnnB);
    const bool rbhApart = params_.kind == RecurrentKind::kGru && params_.linearBeforeReset;
    for (int64_t d = 0; d < D_; ++d) {
      float* bias = biasOf(d);
      if (!b) {
        std::fill(bias, bias + GH_ + H_, 0.f);
        continue;
      }
      const float* wb = b->data<float>() + d * 2 * GH_;
      const float* rb = wb + GH_;
      for (int64_t j = 0; j < GH_; ++j) bias[j] = wb[j] + (rbhApart && j >= 2 * H_ ? 0.f : rb[j]);
      for (int64_t j = 0; j < H_; ++j) bias[GH_ + j] = rbhApart ? rb[2 * H_ + j] : 0.f;
    }
    if (!lstm()) return;
    // LSTM's, in the slices' order, for its projection.
    for (int64_t d = 0; d < D_; ++d) toSliceOrder(slices_, 1, H_, biasOf(d), 1, gateBias_.data() + d * GH_);
  }

  // LSTM's gate rows ([D][4 gates][H units], `rowFloats` each) reordered as its slices hold
  // them: direction d, slice sl, gate g's units at row d * 4H + sl.col + g * sl.n. W's packing
  // (the projection's columns) and the biases added to them.
  static void toSliceOrder(const std::vector<Slice>& slices, int64_t D, int64_t H, const float* src,
                           int64_t rowFloats, float* dst) {
    for (int64_t d = 0; d < D; ++d)
      for (const Slice& sl : slices)
        for (int g = 0; g < 4; ++g)
          std::memcpy(dst + (d * 4 * H + sl.col + g * sl.n) * rowFloats, src + (d * 4 * H + g * H + sl.j0) * rowFloats,
                      sizeof(float) * sl.n * rowFloats);
  }

  bool lstm() const { return params_.kind == RecurrentKind::kLstm; }

  // Where weight rows are gathered before packing: the plan's buffer (weights packed on every
  // run), else `local` (constant weights, packed once while planning).
  float* gatherRoom(size_t floats, std::vector<float>& local) {
    if (gather_.size() >= floats) return gather_.data();
    local.resize(floats);
    return local.data();
  }

  float* dirScratch(int64_t d) { return scratch_.data() + d * dirFloats_; }
  float* hiddenOf(int64_t d, int which) { return dirScratch(d) + which * batch_ * H_; }  // 2 x [batch, H]
  float* cellOf(int64_t d) { return dirScratch(d) + 2 * batch_ * H_; }                  // [batch, H]
  float* gatesOf(int64_t d) { return dirScratch(d) + 3 * batch_ * H_; }                 // [batch, gateCols]
  float* resetHiddenOf(int64_t d) { return gatesOf(d) + batch_ * GH_; }                 // GRU: r (.) H
  float* hiddenProductOf(int64_t d) { return resetHiddenOf(d) + batch_ * H_; }          // GRU: (r (.) H) Rh^T
  float* biasOf(int64_t d) { return hiddenProductOf(d) + batch_ * H_; }                 // GH + H

  // Where X's row of time t and entry b is projected: all of X's rows in its order, or the
  // current chunk's (sequence-major from chunkStart_).
  int64_t projectedRow(int64_t t, int64_t b) const {
    return params_.layout == 1 ? b * seq_ + t : (t - chunkStart_) * batch_ + b;
  }

  // projected_ = X W^T for times [t0, t1) (every entry; sequence-major X where t0 > 0).
  void project(const Tensors& inputs, int64_t t0, int64_t t1) {
    GemmArgs g;
    g.M = (t1 - t0) * batch_;
    g.N = D_ * GH_;
    g.K = input_;
    g.A = inputs[kRnnX]->data<float>() + t0 * batch_ * input_;
    g.lda = input_;
    g.packedB = wp_;
    g.C = projected_.data();
    g.ldc = D_ * GH_;
    struct AddBias {
      float* c;
      int64_t ldc;
      const float* bias;
    } addBias{g.C, g.ldc, gateBias_.data()};
    if (lstm()) {  // + the biases, on each block while it is in cache
      g.finish = [](const void* context, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
        const AddBias& a = *static_cast<const AddBias*>(context);
        for (int64_t m = m0; m < m1; ++m)
          for (int64_t n = n0; n < n1; ++n) a.c[m * a.ldc + n] += a.bias[n];
      };
      g.finishContext = &addBias;
    }
    gemmPacked(cpuPool(*this), g);
  }
  int64_t yOffset(int64_t t, int64_t d, int64_t b) const {
    return (params_.layout == 1 ? (b * seq_ + t) * D_ + d : (t * D_ + d) * batch_ + b) * H_;
  }
  int64_t stateOffset(int64_t d, int64_t b) const { return (params_.layout == 1 ? b * D_ + d : d * batch_ + b) * H_; }

  void clip(float* x, int64_t n) const {
    if (!params_.hasClip) return;
    for (int64_t i = 0; i < n; ++i) x[i] = std::fmin(params_.clip, std::fmax(-params_.clip, x[i]));
  }

  void loadState(const Tensor* initial, int64_t d, float* state) const {
    for (int64_t b = 0; b < batch_; ++b) {
      float* dst = state + b * H_;
      if (initial) std::memcpy(dst, initial->data<float>() + stateOffset(d, b), sizeof(float) * H_);
      else std::fill(dst, dst + H_, 0.f);
    }
  }

  // state [batch, H] x one slice's packed columns -> out [batch, cols] (row stride ldc), or
  // added to it.
  void sliceProduct(const float* state, const float* packed, int64_t cols, float* out, int64_t ldc,
                    bool accumulate = false) const {
    GemmArgs g;
    g.accumulate = accumulate;
    g.M = batch_;
    g.N = cols;
    g.K = H_;
    g.A = state;
    g.lda = H_;
    g.packedB = packed;
    g.C = out;
    g.ldc = ldc;
    gemmPackedTile(g, 0, g.M, 0, g.N);
  }

  // What a step's slices share.
  struct Step {
    CpuRecurrent* self;
    int d;
    int64_t s;
    bool reversed;
    const float* packedR;
    const float* h;  // the state before the step
    float* next;     // the state after it
    const float* P;  // LSTM peepholes, or null
    float* Y;        // the Y output, or null
    // Where entry b's gate pre-activations go: gates + b * gateStride, slice q's from its
    // column sl.col. inPlace: the projected rows of the step's time (inputs and biases in,
    // LSTM only), else the direction's gate buffer.
    float* gates;
    int64_t gateStride;
    bool inPlace;
  };

  // GRU without linear_before_reset, first half: z and r of the slice, then r (.) H.
  void resetGatesOfSlice(const Step& st, const Slice& sl) {
    float* gates = gatesOf(st.d);
    sliceProduct(st.h, st.packedR + sl.packed, 2 * sl.n, gates + sl.col, gateCols_);
    const float* bias = biasOf(st.d);
    for (int64_t b = 0; b < batch_; ++b) {
      if (st.s >= lengths_[b]) continue;
      const float* xw = projectedOf(st, b);
      float* gate = gates + b * gateCols_ + sl.col;
      addInputs(gate, xw, bias, sl, 2);
      clip(gate, 2 * sl.n);
      activate(params_.activation(st.d, 0), gate, 2 * sl.n);
      const float* r = gate + sl.n;
      const float* h = st.h + b * H_ + sl.j0;
      float* rh = resetHiddenOf(st.d) + b * H_ + sl.j0;
      for (int64_t j = 0; j < sl.n; ++j) rh[j] = r[j] * h[j];
    }
  }

  // The slice's product, then its units' cells for every entry of the batch.
  void cellsOfSlice(const Step& st, const Slice& sl) {
    if (splitH_)
      sliceProduct(resetHiddenOf(st.d), st.packedR + sl.packedH, sl.n, hiddenProductOf(st.d) + sl.j0, H_);
    else
      sliceProduct(st.h, st.packedR + sl.packed, G_ * sl.n, st.gates + sl.col, st.gateStride, st.inPlace);
    const float* bias = biasOf(st.d);
    float* c = cellOf(st.d);
    for (int64_t b = 0; b < batch_; ++b) {
      const int64_t row = b * H_ + sl.j0;
      if (st.s >= lengths_[b]) {  // past this entry's end: Y is 0 at step s, the state stays
        if (st.Y) std::fill(st.Y + yOffset(st.s, st.d, b) + sl.j0, st.Y + yOffset(st.s, st.d, b) + sl.j0 + sl.n, 0.f);
        std::memcpy(st.next + row, st.h + row, sizeof(float) * sl.n);
        continue;
      }
      const float* xw = projectedOf(st, b);
      float* gate = st.gates + b * st.gateStride + sl.col;
      float* h = st.next + row;
      switch (params_.kind) {
        case RecurrentKind::kRnn: rnnCell(st.d, xw, gate, bias, sl, h); break;
        case RecurrentKind::kGru: gruCell(st.d, b, xw, gate, bias, sl, st.h + row, h); break;
        case RecurrentKind::kLstm: lstmCell(st.d, st.inPlace ? nullptr : xw, gate, st.P, sl, c + row, h); break;
      }
      if (st.Y) std::memcpy(st.Y + yOffset(timeOf(st.s, b, st.reversed), st.d, b) + sl.j0, h, sizeof(float) * sl.n);
    }
  }

  // Runs `work` on every slice: one per pool thread where there are several.
  template <void (CpuRecurrent::*work)(const Step&, const Slice&)>
  void forSlices(const Step& st) {
    if (slices_.size() == 1) return (this->*work)(st, slices_[0]);
    // One reference captured: the std::function holds it without allocating.
    cpuPool(*this).parallelFor(static_cast<int64_t>(slices_.size()), [&st](int64_t begin, int64_t end) {
      for (int64_t q = begin; q < end; ++q) (st.self->*work)(st, st.self->slices_[static_cast<size_t>(q)]);
    }, 1);
  }

  void runDirection(int d, const float* packedR, const Tensors& inputs, const Tensors& outputs) {
    const bool lstm = params_.kind == RecurrentKind::kLstm;
    int cur = 0;  // which of the two state buffers holds H
    loadState(optional(inputs, kRnnInitialH), d, hiddenOf(d, cur));
    if (lstm) loadState(optional(inputs, kRnnInitialC), d, cellOf(d));
    const Tensor* peep = lstm ? optional(inputs, kRnnP) : nullptr;
    Step st{this, d, 0, params_.reversed(d), packedR, nullptr, nullptr,
            peep ? peep->data<float>() + d * 3 * H_ : nullptr, wantOutput_[0] ? outputs[0]->data<float>() : nullptr,
            gatesOf(d), gateCols_, false};
    // LSTM's products onto the projected rows where every entry of a step is at one time: the
    // forward direction, or the reverse one when every sequence is whole.
    st.inPlace = lstm && (!st.reversed || std::all_of(lengths_.begin(), lengths_.end(),
                                                         [this](int64_t n) { return n == seq_; }));

    for (int64_t s = 0; s < seq_; ++s) {
      if (s >= maxLength_) {  // every entry has ended: Y is 0 from here
        if (st.Y)
          for (int64_t b = 0; b < batch_; ++b) std::fill(st.Y + yOffset(s, d, b), st.Y + yOffset(s, d, b) + H_, 0.f);
        continue;
      }
      if (chunkSteps_ < seq_ && s % chunkSteps_ == 0) {  // the next chunk's inputs, projected
        chunkStart_ = s;
        project(inputs, s, std::min(seq_, s + chunkSteps_));
      }
      st.s = s;
      st.h = hiddenOf(d, cur);
      if (st.inPlace) {
        const int64_t t = timeOf(s, 0, st.reversed), row = projectedRow(t, 0);
        st.gates = projected_.data() + row * D_ * GH_ + d * GH_;
        st.gateStride = batch_ > 1 ? (projectedRow(t, 1) - row) * D_ * GH_ : 0;
      }
      st.next = hiddenOf(d, 1 - cur);
      // GRU's h block multiplies r (.) H, which needs every slice's r first.
      if (splitH_) forSlices<&CpuRecurrent::resetGatesOfSlice>(st);
      forSlices<&CpuRecurrent::cellsOfSlice>(st);
      cur = 1 - cur;
    }
    // Y_h / Y_c: each entry's last state, 0 for an empty sequence.
    for (int k = 1; k <= (lstm ? 2 : 1); ++k) {
      if (!wantOutput_[k] || outputs.size() <= static_cast<size_t>(k)) continue;
      const float* state = k == 1 ? hiddenOf(d, cur) : cellOf(d);
      float* out = outputs[k]->data<float>();
      for (int64_t b = 0; b < batch_; ++b) {
        float* dst = out + stateOffset(d, b);
        if (lengths_[b] == 0) std::fill(dst, dst + H_, 0.f);
        else std::memcpy(dst, state + b * H_, sizeof(float) * H_);
      }
    }
  }

  int64_t timeOf(int64_t s, int64_t b, bool reversed) const { return reversed ? lengths_[b] - 1 - s : s; }

  // Direction d's projected inputs x W^T at entry b's time of step s: GH floats.
  const float* projectedOf(const Step& st, int64_t b) const {
    return projected_.data() + projectedRow(timeOf(st.s, b, st.reversed), b) * D_ * GH_ + st.d * GH_;
  }

  // gate[g * n + j] += xw[g * H + j0 + j] + bias[g * H + j0 + j] for the slice's first `gates` gates.
  void addInputs(float* gate, const float* xw, const float* bias, const Slice& sl, int gates) const {
    for (int g = 0; g < gates; ++g) {
      float* out = gate + g * sl.n;
      const float* x = xw + g * H_ + sl.j0;
      const float* bb = bias + g * H_ + sl.j0;
      for (int64_t j = 0; j < sl.n; ++j) out[j] += x[j] + bb[j];
    }
  }

  // H = f(x W^T + H R^T + Wb + Rb).
  void rnnCell(int d, const float* xw, float* gate, const float* bias, const Slice& sl, float* h) {
    addInputs(gate, xw, bias, sl, 1);
    clip(gate, sl.n);
    activate(params_.activation(d, 0), gate, sl.n);
    std::memcpy(h, gate, sizeof(float) * sl.n);
  }

  // z, r, h~ of the slice's units; `h` the state before the step, `next` after it.
  void gruCell(int d, int64_t b, const float* xw, float* gate, const float* bias, const Slice& sl, const float* h,
               float* next) {
    const int64_t n = sl.n, j0 = sl.j0;
    const float* z = gate;
    const float* r = gate + n;
    float* hc;  // the candidate h
    if (splitH_) {
      // z and r are done; h~ = g(x Wh^T + (r (.) H) Rh^T + Wbh + Rbh).
      hc = hiddenProductOf(d) + b * H_ + j0;
      for (int64_t j = 0; j < n; ++j) hc[j] += xw[2 * H_ + j0 + j] + bias[2 * H_ + j0 + j];
    } else {
      // h~ = g(x Wh^T + r (.) (H Rh^T + Rbh) + Wbh).
      addInputs(gate, xw, bias, sl, 2);
      clip(gate, 2 * n);
      activate(params_.activation(d, 0), gate, 2 * n);
      hc = gate + 2 * n;
      const float* rbh = bias + GH_ + j0;
      for (int64_t j = 0; j < n; ++j) hc[j] = xw[2 * H_ + j0 + j] + r[j] * (hc[j] + rbh[j]) + bias[2 * H_ + j0 + j];
    }
    clip(hc, n);
    activate(params_.activation(d, 1), hc, n);
    for (int64_t j = 0; j < n; ++j) next[j] = (1.f - z[j]) * hc[j] + z[j] * h[j];
  }

  // Gates i o f c; peepholes P = Pi Po Pf. `c` and `h` are the slice's units of the cell
  // state (updated in place) and of the state after the step.
  // xw: the entry's projected inputs (biases in, columns in the slices' order), to add; null
  // where the product was added onto them.
  void lstmCell(int d, const float* xw, float* gate, const float* P, const Slice& sl, float* c, float* h) {
    const int64_t n = sl.n;
    if (xw)
      for (int64_t k = 0; k < 4 * n; ++k) gate[k] += xw[sl.col + k];
    float* i = gate;
    float* o = gate + n;
    float* f = gate + 2 * n;
    float* cc = gate + 3 * n;
    if (!P && plainLstmCell(d)) return vectorLstmCell(i, o, f, cc, c, h, n);  // the usual cell, one pass
    const float* pi = P ? P + sl.j0 : nullptr;
    const float* po = P ? P + H_ + sl.j0 : nullptr;
    const float* pf = P ? P + 2 * H_ + sl.j0 : nullptr;
    if (P)
      for (int64_t j = 0; j < n; ++j) {
        i[j] += pi[j] * c[j];
        f[j] += pf[j] * c[j];
      }
    const RecurrentActivation& fa = params_.activation(d, 0);
    clip(i, n);
    activate(fa, i, n);
    if (params_.inputForget) {
      for (int64_t j = 0; j < n; ++j) f[j] = 1.f - i[j];
    } else {
      clip(f, n);
      activate(fa, f, n);
    }
    clip(cc, n);
    activate(params_.activation(d, 1), cc, n);
    for (int64_t j = 0; j < n; ++j) c[j] = f[j] * c[j] + i[j] * cc[j];
    if (P)
      for (int64_t j = 0; j < n; ++j) o[j] += po[j] * c[j];
    clip(o, n);
    activate(fa, o, n);
    std::memcpy(cc, c, sizeof(float) * n);
    activate(params_.activation(d, 2), cc, n);
    for (int64_t j = 0; j < n; ++j) h[j] = o[j] * cc[j];
  }

  // Direction d's LSTM cells are the usual ones (sigmoid, tanh, tanh; no clip; no coupled
  // input and forget gates): one fused pass computes them (peepholes are checked apart).
  bool plainLstmCell(int d) const {
    return !params_.hasClip && !params_.inputForget &&
           params_.activation(d, 0).kind == RecurrentActivation::kSigmoid &&
           params_.activation(d, 1).kind == RecurrentActivation::kTanh &&
           params_.activation(d, 2).kind == RecurrentActivation::kTanh;
  }

  RecurrentParams params_;
  std::string label_;
  bool wantOutput_[3] = {false, false, false};
  int64_t seq_ = 0, batch_ = 0, input_ = 0, D_ = 1, H_ = 0, GH_ = 0;
  int G_ = 1;
  bool splitH_ = false;
  std::vector<Slice> slices_;
  int64_t gateCols_ = 0, rBlock_ = 0, dirFloats_ = 0, maxLength_ = 0;
  int64_t chunkSteps_ = 0;  // steps projected at a time (seq_: all at once, before the steps)
  int64_t chunkStart_ = 0;  // the first time of the chunk in projected_
  PackedWeights wPacked_, rPacked_;
  const float* wp_ = nullptr;  // this run's packed W
  AlignedFloats projected_;  // [rows in X's order (all, or the chunk's), D*G*H] (LSTM: biases in)
  AlignedFloats gateBias_;   // LSTM: per direction W's and R's biases summed, in the slices' order
  AlignedFloats gather_;     // weight rows gathered before packing, where packed on every run
  AlignedFloats scratch_;    // per direction: see hiddenOf .. biasOf
  std::vector<int64_t> lengths_;
  struct {
    const float* packedR;
    const Tensors* inputs;
    const Tensors* outputs;
  } run_ = {nullptr, nullptr, nullptr};  // this run's operands, for the directions' threads
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  RecurrentParams p;
  if (!RecurrentParams::parse(node, &p).isOk() || inputs.size() < 3) return nullptr;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i] && i != kRnnSequenceLens && inputs[i]->dtype() != DataType::kF32) return nullptr;
  if (!inputs[kRnnX] || !inputs[kRnnW] || !inputs[kRnnR]) return nullptr;
  return std::make_unique<CpuRecurrent>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, RNN, create);
TESSERA_REGISTER_EXECUTION(kCPU, GRU, create);
TESSERA_REGISTER_EXECUTION(kCPU, LSTM, create);

}  // namespace tessera
