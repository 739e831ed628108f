// CPU Pad for any element type (bytes are moved, never interpreted). Per axis, a table maps
// each output index to its source offset (or to the constant); a row of the output is then
// a lookup along the innermost axis. 4-D f32 tensors run on NC4HW4, others on NCHW.
#include <cstring>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "ops/Pad.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuPad final : public Execution {
 public:
  CpuPad(Backend* b, const PadParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>&, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    selectPackedData(inputs, inputs[0]->dtype() == DataType::kF32, in, out);
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    xAddr_ = ChannelAddressing(inputs[0]->shape(), inputs[0]->layout());
    yAddr_ = ChannelAddressing(outputs[0]->shape(), outputs[0]->layout());
    const int rank = inputs[0]->rank();
    source_.assign(rank, {});
    target_.assign(rank, {});
    tablesReady_ = false;
    const Tensor* pads = inputs.size() > 1 ? inputs[1] : nullptr;
    if (!params_.padsFromInput || (pads && pads->isConstant() && pads->data())) {
      TESSERA_RETURN_IF_ERROR(buildTables(inputs, *outputs[0]));
      tablesReady_ = true;
    }
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (!tablesReady_) TESSERA_RETURN_IF_ERROR(buildTables(inputs, *outputs[0]));
    const size_t size = dataTypeSize(inputs[0]->dtype());
    uint8_t value[16] = {};
    constantBytes(inputs, value);
    bool ok = dispatchBySize(size, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T v;
      std::memcpy(&v, value, sizeof(T));
      run<T>(inputs[0]->data<T>(), outputs[0]->data<T>(), outputs[0]->shape(), v);
    });
    if (!ok) return Status::unsupported(std::string("Pad on ") + dataTypeName(inputs[0]->dtype()));
    if (yAddr_.packed) zeroPaddingLanes(outputs[0]->data<float>(), yAddr_);
    return Status::ok();
  }

 private:
  Status buildTables(const Tensors& inputs, const Tensor& y) {
    std::vector<int64_t> begins, ends;
    Shape out;
    TESSERA_RETURN_IF_ERROR(resolvePads(params_, inputs[0]->shape(), inputs.size() > 1 ? inputs[1] : nullptr,
                                        &begins, &ends, &out));
    if (out != y.shape())
      return Status::invalid("the output shape " + shapeToString(out) + " differs from the planned " +
                             shapeToString(y.shape()) + " (pads changed after planning)");
    const Shape& xs = inputs[0]->shape();
    for (int d = 0; d < static_cast<int>(xs.size()); ++d) {
      source_[d].resize(out[d]);
      target_[d].resize(out[d]);
      for (int64_t o = 0; o < out[d]; ++o) {
        const int64_t s = padSourceIndex(params_.mode, o, begins[d], xs[d]);
        source_[d][o] = s < 0 ? -1 : axisOffset(xs, xAddr_, d, s);
        target_[d][o] = axisOffset(out, yAddr_, d, o);
      }
    }
    return Status::ok();
  }

  // The padding value as bytes of the element type.
  void constantBytes(const Tensors& inputs, uint8_t* bytes) const {
    const DataType t = inputs[0]->dtype();
    if (params_.padsFromInput) {
      const Tensor* v = inputs.size() > 2 ? inputs[2] : nullptr;
      if (v && v->elementCount() > 0 && v->data()) std::memcpy(bytes, v->data(), dataTypeSize(t));
      return;
    }
    const float f = params_.valueAttribute;
    if (t == DataType::kF16) {
      const uint16_t h = floatToHalf(f);
      std::memcpy(bytes, &h, 2);
    } else if (t == DataType::kBF16) {
      const uint16_t h = floatToBFloat16(f);
      std::memcpy(bytes, &h, 2);
    } else {
      dispatchNumeric(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T v = static_cast<T>(f);
        std::memcpy(bytes, &v, sizeof(T));
      });
    }
  }

  template <typename T>
  void run(const T* x, T* y, const Shape& out, T value) {
    const int rank = static_cast<int>(out.size());
    if (rank == 0) {
      y[0] = x[0];
      return;
    }
    int64_t rows = 1;
    for (int d = 0; d + 1 < rank; ++d) rows *= out[d];
    const std::vector<int64_t>& innerSource = source_[rank - 1];
    const std::vector<int64_t>& innerTarget = target_[rank - 1];
    const int64_t innerCount = out[rank - 1];
    cpuPool(*this).parallelFor(rows, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        int64_t src = 0, dst = 0, rest = row;
        bool constantRow = false;
        for (int d = rank - 2; d >= 0; --d) {
          const int64_t o = rest % out[d];
          rest /= out[d];
          constantRow = constantRow || source_[d][o] < 0;
          src += source_[d][o];
          dst += target_[d][o];
        }
        T* yr = y + dst;
        const T* xr = x + src;
        for (int64_t j = 0; j < innerCount; ++j)
          yr[innerTarget[j]] = (constantRow || innerSource[j] < 0) ? value : xr[innerSource[j]];
      }
    }, 16);
  }

  PadParams params_;
  ChannelAddressing xAddr_, yAddr_;
  std::vector<std::vector<int64_t>> source_, target_;  // per axis, per output index
  bool tablesReady_ = false;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.empty() || !inputs[0]) return nullptr;
  const size_t size = dataTypeSize(inputs[0]->dtype());
  if (inputs[0]->dtype() == DataType::kString || (size != 1 && size != 2 && size != 4 && size != 8)) return nullptr;
  PadParams p;
  if (!PadParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuPad>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Pad, create);

}  // namespace tessera
