// CPU ConvInteger and QLinearConv (semantics: ops/IntegerConv.hpp), on NCHW.
//
// The weights are widened once to int16 with their zero points subtracted (at resize when
// w and w_zero_point are constant). Each task takes one (batch, group, tile of output
// positions): it gathers the tile's input windows, x - x_zero_point (0 in the padding), into
// a [C/group * taps][positions] int16 matrix, then accumulates every output channel of the
// group exactly in int32 (uint32 arithmetic: a wrap-around of huge sums stays defined),
// straight into y for ConvInteger, into a per-worker row that QLinearConv adds the bias to
// and requantizes. Tasks are spread over the pool.
#include <algorithm>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/IntegerConv.hpp"
#include "ops/Quantize.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

constexpr int64_t kColumnBytes = 128 * 1024;  // the gathered tile should stay in L2

class CpuIntegerConv final : public Execution {
 public:
  CpuIntegerConv(Backend* b, const ConvParams& p, bool qlinear)
      : Execution(b), params_(p), qlinear_(qlinear), ix_(IntegerConvInputs::of(qlinear)) {}

  void selectDataTypes(const std::vector<DataType>&, const Tensors&, std::vector<DataType>* in,
                       std::vector<DataType>*) const override {
    for (int i : {ix_.xScale, ix_.wScale, ix_.yScale})
      if (i >= 0 && static_cast<size_t>(i) < in->size() && (*in)[i] != DataType::kUnknown) (*in)[i] = DataType::kF32;
  }

  Status onResize(const Tensors& inputs, const Tensors&) override {
    DataType outputType;
    TESSERA_RETURN_IF_ERROR(
        resolveIntegerConv(params_, std::vector<const Tensor*>(inputs.begin(), inputs.end()), qlinear_, &shape_, &outputType));
    geometry_ = shape_.window.padTo3D();
    taps_ = geometry_.kernelCount();
    K_ = shape_.inPerGroup() * taps_;
    positions_ = geometry_.outputCount();
    const Tensor* w = inputs[ix_.w];
    const Tensor* wZero = presentInput(inputs, ix_.wZero);
    widenedW_.assign(shape_.outChannels * K_, 0);
    wWidened_ = w->isConstant() && (!wZero || wZero->isConstant());
    if (wWidened_) widenW(*w, wZero);

    tileRows_ = std::max<int64_t>(16, std::min<int64_t>(256, kColumnBytes / std::max<int64_t>(1, 2 * K_)));
    tileRows_ = std::max<int64_t>(1, std::min(tileRows_, positions_));
    tiles_ = (positions_ + tileRows_ - 1) / tileRows_;
    tasks_ = shape_.batch * shape_.group * tiles_;
    workers_ = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(cpuPool(*this).threads(), tasks_)));
    columns_.assign(workers_ * K_ * tileRows_, 0);
    rows_.assign(qlinear_ ? workers_ * tileRows_ : 0, 0u);
    return Status::ok();
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    Tensors convInputs = {inputs[ix_.x], inputs[ix_.w]};
    return convWork(convInputs, outputs);
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (!wWidened_) widenW(*inputs[ix_.w], presentInput(inputs, ix_.wZero));
    const Tensor& x = *inputs[ix_.x];
    if (x.dtype() == DataType::kI8) return run(x.data<int8_t>(), inputs, outputs);
    return run(x.data<uint8_t>(), inputs, outputs);
  }

 private:
  // widenedW_[m][k] = w[m][k] - w_zero_point[m], k = (input channel of the group, tap).
  void widenW(const Tensor& w, const Tensor* wZero) {
    cpuPool(*this).parallelFor(shape_.outChannels, [&](int64_t begin, int64_t end) {
      for (int64_t m = begin; m < end; ++m) {
        const int32_t zp = wZero && wZero->elementCount() > 1 ? integerAt(wZero, m) : integerAt(wZero, 0);
        for (int64_t k = 0; k < K_; ++k)
          widenedW_[m * K_ + k] = static_cast<int16_t>(integerAt(&w, m * K_ + k) - zp);
      }
    }, 1);
  }

  template <typename X>
  Status run(const X* x, const Tensors& inputs, const Tensors& outputs) {
    const int32_t xZero = integerAt(presentInput(inputs, ix_.xZero), 0);
    const int workers = workers_;
    cpuPool(*this).parallelFor(workers, [&](int64_t begin, int64_t end) {
      for (int64_t worker = begin; worker < end; ++worker)
        for (int64_t t = worker; t < tasks_; t += workers) runTask(t, worker, x, xZero, inputs, outputs);
    }, 1);
    return Status::ok();
  }

  template <typename X>
  void runTask(int64_t task, int64_t worker, const X* x, int32_t xZero, const Tensors& inputs,
               const Tensors& outputs) {
    const int64_t tile = task % tiles_;
    const int64_t g = (task / tiles_) % shape_.group;
    const int64_t n = task / (tiles_ * shape_.group);
    const int64_t p0 = tile * tileRows_;
    const int64_t rows = std::min(tileRows_, positions_ - p0);
    int16_t* col = columns_.data() + worker * K_ * tileRows_;
    const X* xGroup = x + (n * shape_.inChannels + g * shape_.inPerGroup()) * geometry_.inputCount();
    gather(xGroup, xZero, p0, rows, col);

    const int64_t outPerGroup = shape_.outPerGroup();
    for (int64_t m = 0; m < outPerGroup; ++m) {
      const int64_t oc = g * outPerGroup + m;
      const int64_t yOffset = (n * shape_.outChannels + oc) * positions_ + p0;
      uint32_t* acc = qlinear_ ? rows_.data() + worker * tileRows_
                               : reinterpret_cast<uint32_t*>(outputs[0]->data<int32_t>() + yOffset);
      std::fill(acc, acc + rows, 0u);
      const int16_t* wRow = widenedW_.data() + oc * K_;
      for (int64_t k = 0; k < K_; ++k) {
        const int32_t wv = wRow[k];
        if (wv == 0) continue;
        const int16_t* c = col + k * tileRows_;
        for (int64_t r = 0; r < rows; ++r) acc[r] += static_cast<uint32_t>(wv * static_cast<int32_t>(c[r]));
      }
      if (!qlinear_) continue;
      if (outputs[0]->dtype() == DataType::kI8) requantizeRow(inputs, oc, acc, rows, outputs[0]->data<int8_t>() + yOffset);
      else requantizeRow(inputs, oc, acc, rows, outputs[0]->data<uint8_t>() + yOffset);
    }
  }

  // col[(c, tap)][r] = x(channel c of the group, tap's input position for output position
  // p0 + r) - xZero, 0 where that falls into the padding.
  template <typename X>
  void gather(const X* xGroup, int32_t xZero, int64_t p0, int64_t rows, int16_t* col) const {
    const WindowGeometry& w = geometry_;
    const int64_t OH = w.output[1], OW = w.output[2];
    const int64_t ID = w.input[0], IH = w.input[1], IW = w.input[2];
    for (int64_t c = 0; c < shape_.inPerGroup(); ++c) {
      const X* xc = xGroup + c * geometry_.inputCount();
      int64_t tap = 0;
      for (int64_t kd = 0; kd < w.kernel[0]; ++kd)
        for (int64_t kh = 0; kh < w.kernel[1]; ++kh)
          for (int64_t kw = 0; kw < w.kernel[2]; ++kw, ++tap) {
            int16_t* dst = col + (c * taps_ + tap) * tileRows_;
            int64_t od = p0 / (OH * OW), oh = p0 / OW % OH, ow = p0 % OW;
            for (int64_t r = 0; r < rows; ++r) {
              const int64_t id = od * w.stride[0] - w.padBegin[0] + kd * w.dilation[0];
              const int64_t ih = oh * w.stride[1] - w.padBegin[1] + kh * w.dilation[1];
              const int64_t iw = ow * w.stride[2] - w.padBegin[2] + kw * w.dilation[2];
              const bool inside = id >= 0 && id < ID && ih >= 0 && ih < IH && iw >= 0 && iw < IW;
              dst[r] = inside ? static_cast<int16_t>(static_cast<int32_t>(xc[(id * IH + ih) * IW + iw]) - xZero) : 0;
              if (++ow == OW) {
                ow = 0;
                if (++oh == OH) {
                  oh = 0;
                  ++od;
                }
              }
            }
          }
    }
  }

  template <typename Q>
  void requantizeRow(const Tensors& inputs, int64_t oc, const uint32_t* acc, int64_t rows, Q* y) const {
    const Tensor* wScale = inputs[ix_.wScale];
    const Tensor* bias = presentInput(inputs, ix_.bias);
    const float multiplier = inputs[ix_.xScale]->data<float>()[0] *
                             wScale->data<float>()[wScale->elementCount() > 1 ? oc : 0] /
                             inputs[ix_.yScale]->data<float>()[0];
    const int32_t yZero = integerAt(inputs[ix_.yZero], 0);
    const uint32_t b = bias ? static_cast<uint32_t>(bias->data<int32_t>()[oc]) : 0u;
    for (int64_t r = 0; r < rows; ++r) y[r] = requantize<Q>(static_cast<int32_t>(acc[r] + b), multiplier, yZero);
  }

  ConvParams params_;
  bool qlinear_;
  IntegerConvInputs ix_;
  ConvShape shape_;
  WindowGeometry geometry_;
  int64_t taps_ = 1, K_ = 0, positions_ = 0, tileRows_ = 1, tiles_ = 0, tasks_ = 0;
  int workers_ = 1;
  bool wWidened_ = false;
  std::vector<int16_t> widenedW_, columns_;
  std::vector<uint32_t> rows_;  // QLinearConv: one accumulator row per worker
};

template <bool QLinear>
std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  ConvParams p;
  ConvShape shape;
  DataType outputType;
  if (!ConvParams::parse(node, &p).isOk() || p.activation.kind != FusedActivation::Kind::kNone) return nullptr;
  if (!resolveIntegerConv(p, std::vector<const Tensor*>(inputs.begin(), inputs.end()), QLinear, &shape, &outputType).isOk())
    return nullptr;
  return std::make_unique<CpuIntegerConv>(b, p, QLinear);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, ConvInteger, create<false>);
TESSERA_REGISTER_EXECUTION(kCPU, QLinearConv, create<true>);

}  // namespace tessera
