// CPU Split: the mirror of Concat. For each outer index, each output takes one contiguous
// block of the input row. Works on bytes: every dtype. As Concat, an f32 split of a 4-D
// NC4HW4 tensor along channels stays packed where every output but the last has whole channel
// blocks (YOLOv8's C2f blocks split a conv's output in two halves): the input's blocks, in
// order, are the outputs' blocks; through NCHW each split had taken a layout copy before it and
// one after each output.
#include <algorithm>
#include <cstring>

#include "backends/cpu/CopyPieces.hpp"
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "ops/Split.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuSplit final : public Execution {
 public:
  CpuSplit(Backend* b, const Node& node, const SplitParams& p)
      : Execution(b), node_(node), params_(p), outputCount_(static_cast<int>(node.outputs.size())) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    const bool anyPacked = std::find(available.begin(), available.end(), Layout::kNC4HW4) != available.end();
    const Layout l = anyPacked && packable(inputs) ? Layout::kNC4HW4 : Layout::kNCHW;
    in->assign(inputs.size(), Layout::kNCHW);
    (*in)[0] = l;
    out->assign(outputCount_, l);
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Shape& inShape = inputs[0]->shape();
    int64_t axis = 0;
    normalizeAxis(params_.axis, static_cast<int64_t>(inShape.size()), &axis);
    packed_ = inputs[0]->layout() == Layout::kNC4HW4;
    outer_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= inShape[d];
    const size_t elem = dataTypeSize(inputs[0]->dtype());
    blockBytes_.clear();
    inRowBytes_ = 0;
    for (const Tensor* t : outputs) {
      // Packed: an output's part of a batch row is its channel blocks, padding lanes included.
      int64_t block = packed_ ? roundUpChannels(t->dim(1)) : 1;
      for (int d = static_cast<int>(axis) + (packed_ ? 1 : 0); d < t->rank(); ++d) block *= t->dim(d);
      blockBytes_.push_back(static_cast<size_t>(block) * elem);
      inRowBytes_ += blockBytes_.back();
    }
    // Few rows (a batch-1 channel split is one): their copies in pieces over the pool.
    pieces_.clear();
    for (int64_t o = 0; o < outer_ && outer_ <= kCopyPieceRows; ++o) {
      size_t from = static_cast<size_t>(o) * inRowBytes_;
      for (size_t i = 0; i < outputs.size(); ++i) {
        addCopyPieces(&pieces_, i, from, static_cast<size_t>(o) * blockBytes_[i], blockBytes_[i]);
        from += blockBytes_[i];
      }
    }
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (inputs[0]->elementCount() == 0) return Status::ok();
    const char* src = inputs[0]->data<char>();
    if (!pieces_.empty()) {
      runCopyPieces(cpuPool(*this), pieces_, [&](const CopyPiece& c) {
        std::memcpy(outputs[c.tensor]->data<char>() + c.at, src + c.from, c.bytes);
      });
    } else {
      const int64_t minRows = std::max<int64_t>(1, 65536 / std::max<size_t>(1, inRowBytes_));
      cpuPool(*this).parallelFor(outer_, [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o) {
          const char* row = src + o * inRowBytes_;
          for (size_t i = 0; i < outputs.size(); ++i) {
            if (blockBytes_[i] == 0) continue;
            std::memcpy(outputs[i]->data<char>() + o * blockBytes_[i], row, blockBytes_[i]);
            row += blockBytes_[i];
          }
        }
      }, minRows);
    }
    // The last output's padding lanes are the input's: whatever its producer left there.
    if (packed_ && !outputs.empty())
      zeroPaddingLanes(outputs.back()->data<float>(), ChannelAddressing(outputs.back()->shape(), Layout::kNC4HW4));
    return Status::ok();
  }

 private:
  // f32, 4-D, along channels, whole blocks in every output but the last. The split sizes are
  // known here only when given as an attribute or a constant input (ops/Split.hpp).
  bool packable(const Tensors& inputs) const {
    if (inputs.empty() || !inputs[0] || inputs[0]->rank() != 4 || inputs[0]->dtype() != DataType::kF32) return false;
    int64_t axis = 0;
    if (!normalizeAxis(params_.axis, 4, &axis) || axis != 1) return false;
    std::vector<int64_t> sizes;
    const Tensor* splitInput = inputs.size() > 1 ? inputs[1] : nullptr;
    if (!resolveSplitSizes(node_, params_, inputs[0]->shape(), splitInput, outputCount_, &axis, &sizes).isOk())
      return false;
    for (size_t i = 0; i + 1 < sizes.size(); ++i)
      if (sizes[i] % kChannelPack != 0) return false;
    return true;
  }

  Node node_;
  SplitParams params_;
  int outputCount_ = 1;
  bool packed_ = false;
  int64_t outer_ = 1;
  std::vector<size_t> blockBytes_;
  size_t inRowBytes_ = 0;
  std::vector<CopyPiece> pieces_;  // few rows: the input's bytes -> an output tensor's (else empty)
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors&, const Tensors&) {
  SplitParams p;
  if (!SplitParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuSplit>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Split, create);

}  // namespace tessera
