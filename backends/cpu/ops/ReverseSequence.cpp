// CPU ReverseSequence (semantics: ops/ReverseSequence.hpp): the input is rows of `inner`
// elements (the dimensions after the first two) at (time, batch) or (batch, time); each
// output row is copied from its source row. Lengths are checked before anything is written.
// Any dtype (copied by bytes).
#include <algorithm>
#include <cstring>
#include <string>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/ReverseSequence.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuReverseSequence final : public Execution {
 public:
  CpuReverseSequence(Backend* b, const Node& node, const ReverseSequenceParams& p)
      : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    const Shape& s = inputs[0]->shape();
    batch_ = s[params_.batchAxis];
    time_ = s[params_.timeAxis];
    int64_t inner = 1;
    for (size_t d = 2; d < s.size(); ++d) inner *= s[d];
    rowBytes_ = static_cast<size_t>(inner) * dataTypeSize(inputs[0]->dtype());
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& lens = *inputs[1];
    for (int64_t b = 0; b < batch_; ++b) {
      const int64_t len = length(lens, b);
      if (len < 0 || len > time_)
        return Status::invalid(node_.label() + ": input 'sequence_lens' holds " + std::to_string(len) +
                               " for batch " + std::to_string(b) + ", outside [0, " + std::to_string(time_) +
                               "] (the time extent)");
    }
    if (rowBytes_ == 0) return Status::ok();
    const char* src = inputs[0]->data<char>();
    char* dst = outputs[0]->data<char>();
    // Row (t, b) lies at t * batch + b when time comes first, b * time + t otherwise.
    const bool timeFirst = params_.timeAxis == 0;
    const int64_t rows = batch_ * time_;
    cpuPool(*this).parallelFor(rows, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t t = timeFirst ? r / batch_ : r % time_;
        const int64_t b = timeFirst ? r % batch_ : r / time_;
        const int64_t len = length(lens, b);
        const int64_t from = t < len ? len - 1 - t : t;
        const int64_t s = timeFirst ? from * batch_ + b : b * time_ + from;
        std::memcpy(dst + r * rowBytes_, src + s * rowBytes_, rowBytes_);
      }
    }, std::max<int64_t>(1, 16384 / static_cast<int64_t>(rowBytes_)));
    return Status::ok();
  }

 private:
  static int64_t length(const Tensor& lens, int64_t b) {
    return lens.dtype() == DataType::kI64 ? lens.data<int64_t>()[b] : lens.data<int32_t>()[b];
  }

  Node node_;
  ReverseSequenceParams params_;
  int64_t batch_ = 0, time_ = 0;
  size_t rowBytes_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  ReverseSequenceParams p;
  if (!ReverseSequenceParams::parse(node, &p).isOk() || inputs.size() < 2 || !inputs[0] || !inputs[1])
    return nullptr;
  const DataType lt = inputs[1]->dtype();
  if (lt != DataType::kI64 && lt != DataType::kI32) return nullptr;
  return std::make_unique<CpuReverseSequence>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, ReverseSequence, create);

}  // namespace tessera
