// CPU Concat: for each outer index (the dims before the axis), each input contributes one
// contiguous block, so the copy is a row of memcpys. Works on bytes: every dtype.
// f32 channel concatenation of 4-D NC4HW4 tensors (a detector's feature-pyramid merge) stays
// packed when every input but the last has whole channel blocks: the blocks of the inputs,
// one after the other, are the output's blocks, so the same memcpys serve.
#include <algorithm>
#include <cstring>

#include "backends/cpu/CopyPieces.hpp"
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "ops/Concat.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuConcat final : public Execution {
 public:
  CpuConcat(Backend* b, const ConcatParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    const bool anyPacked = std::find(available.begin(), available.end(), Layout::kNC4HW4) != available.end();
    const Layout l = anyPacked && packable(inputs) ? Layout::kNC4HW4 : Layout::kNCHW;
    in->assign(inputs.size(), l);
    *out = {l};
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Shape& outShape = outputs[0]->shape();
    int64_t axis = 0;
    normalizeAxis(params_.axis, static_cast<int64_t>(outShape.size()), &axis);
    packed_ = outputs[0]->layout() == Layout::kNC4HW4;
    outer_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= outShape[d];
    const size_t elem = dataTypeSize(outputs[0]->dtype());
    blockBytes_.clear();
    outRowBytes_ = 0;
    for (const Tensor* t : inputs) {
      // Packed: an input's part of a batch row is its channel blocks, padding lanes included.
      int64_t block = packed_ ? roundUpChannels(t->dim(1)) : 1;
      for (int d = static_cast<int>(axis) + (packed_ ? 1 : 0); d < t->rank(); ++d) block *= t->dim(d);
      blockBytes_.push_back(static_cast<size_t>(block) * elem);
      outRowBytes_ += blockBytes_.back();
    }
    // Few rows (a batch-1 channel concat is one): their copies in pieces over the pool.
    pieces_.clear();
    for (int64_t o = 0; o < outer_ && outer_ <= kCopyPieceRows; ++o) {
      size_t at = static_cast<size_t>(o) * outRowBytes_;
      for (size_t i = 0; i < inputs.size(); ++i) {
        addCopyPieces(&pieces_, i, static_cast<size_t>(o) * blockBytes_[i], at, blockBytes_[i]);
        at += blockBytes_[i];
      }
    }
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (outputs[0]->elementCount() == 0) return Status::ok();
    char* dst = outputs[0]->data<char>();
    if (!pieces_.empty()) {
      runCopyPieces(cpuPool(*this), pieces_, [&](const CopyPiece& c) {
        std::memcpy(dst + c.at, inputs[c.tensor]->data<char>() + c.from, c.bytes);
      });
    } else {
      const int64_t minRows = std::max<int64_t>(1, 65536 / std::max<size_t>(1, outRowBytes_));
      cpuPool(*this).parallelFor(outer_, [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o) {
          char* row = dst + o * outRowBytes_;
          for (size_t i = 0; i < inputs.size(); ++i) {
            if (blockBytes_[i] == 0) continue;
            std::memcpy(row, inputs[i]->data<char>() + o * blockBytes_[i], blockBytes_[i]);
            row += blockBytes_[i];
          }
        }
      }, minRows);
    }
    // The last input's padding lanes are the output's: whatever its producer left there.
    if (packed_) zeroPaddingLanes(outputs[0]->data<float>(), ChannelAddressing(outputs[0]->shape(), Layout::kNC4HW4));
    return Status::ok();
  }

 private:
  // f32, 4-D, along channels, whole blocks in every input but the last.
  bool packable(const Tensors& inputs) const {
    if (inputs.empty() || inputs[0]->rank() != 4 || inputs[0]->dtype() != DataType::kF32) return false;
    int64_t axis = 0;
    if (!normalizeAxis(params_.axis, 4, &axis) || axis != 1) return false;
    for (size_t i = 0; i + 1 < inputs.size(); ++i)
      if (inputs[i]->dim(1) % kChannelPack != 0) return false;
    return true;
  }

  ConcatParams params_;
  bool packed_ = false;
  int64_t outer_ = 1;
  std::vector<size_t> blockBytes_;
  size_t outRowBytes_ = 0;
  std::vector<CopyPiece> pieces_;  // few rows: input tensor's bytes -> the output's (else empty)
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors&, const Tensors&) {
  ConcatParams p;
  if (!ConcatParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuConcat>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Concat, create);

}  // namespace tessera
