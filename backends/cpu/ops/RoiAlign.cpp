// CPU RoiAlign (semantics: ops/RoiAlign.hpp) on f32 and f64, computed in double. One task
// per (roi, channel) plane: the bins' sample points depend only on the roi, but working out
// their four taps again per channel costs less than the reads and needs no buffer sized by
// run-time roi values. Batch indices are checked before anything is written.
#include <algorithm>
#include <cmath>
#include <string>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/RoiAlign.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// A roi in X's pixel coordinates, split into bins and sample grids.
struct RoiGeometry {
  double startH = 0, startW = 0, binH = 0, binW = 0;
  int64_t gridH = 0, gridW = 0, count = 1;

  template <typename T>
  RoiGeometry(const T* roi, const RoiAlignParams& p) {
    const double scale = p.spatialScale, shift = p.halfPixel ? 0.5 : 0.0;
    startW = roi[0] * scale - shift;
    startH = roi[1] * scale - shift;
    double roiW = roi[2] * scale - shift - startW;
    double roiH = roi[3] * scale - shift - startH;
    if (!p.halfPixel) {  // malformed rois become 1x1
      roiW = std::max(roiW, 1.0);
      roiH = std::max(roiH, 1.0);
    }
    binH = roiH / static_cast<double>(p.outputHeight);
    binW = roiW / static_cast<double>(p.outputWidth);
    gridH = p.samplingRatio > 0 ? p.samplingRatio : static_cast<int64_t>(std::ceil(roiH / p.outputHeight));
    gridW = p.samplingRatio > 0 ? p.samplingRatio : static_cast<int64_t>(std::ceil(roiW / p.outputWidth));
    count = std::max<int64_t>(gridH * gridW, 1);
  }
};

// The four weighted neighbours of point (y, x) in an H x W plane; all zero beyond [-1, extent].
template <typename T>
void weightedTaps(const T* plane, int64_t H, int64_t W, double y, double x, double taps[4]) {
  if (y < -1.0 || y > static_cast<double>(H) || x < -1.0 || x > static_cast<double>(W)) {
    taps[0] = taps[1] = taps[2] = taps[3] = 0;
    return;
  }
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1, x1;
  if (y0 >= H - 1) {
    y0 = y1 = H - 1;
    y = static_cast<double>(y0);
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= W - 1) {
    x0 = x1 = W - 1;
    x = static_cast<double>(x0);
  } else {
    x1 = x0 + 1;
  }
  const double ly = y - y0, lx = x - x0, hy = 1.0 - ly, hx = 1.0 - lx;
  taps[0] = hy * hx * plane[y0 * W + x0];
  taps[1] = hy * lx * plane[y0 * W + x1];
  taps[2] = ly * hx * plane[y1 * W + x0];
  taps[3] = ly * lx * plane[y1 * W + x1];
}

class CpuRoiAlign final : public Execution {
 public:
  CpuRoiAlign(Backend* b, const Node& node, const RoiAlignParams& p) : Execution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    const Shape& x = inputs[0]->shape();
    N_ = x[0];
    C_ = x[1];
    H_ = x[2];
    W_ = x[3];
    R_ = inputs[1]->shape()[0];
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& batch = *inputs[2];
    for (int64_t r = 0; r < R_; ++r) {
      const int64_t b = batchIndex(batch, r);
      if (b < 0 || b >= N_)
        return Status::invalid(node_.label() + ": input 'batch_indices' holds " + std::to_string(b) + " for roi " +
                               std::to_string(r) + ", outside [0, " + std::to_string(N_) + ")");
    }
    if (outputs[0]->elementCount() == 0) return Status::ok();
    if (inputs[0]->dtype() == DataType::kF64) run<double>(inputs, *outputs[0]);
    else run<float>(inputs, *outputs[0]);
    return Status::ok();
  }

 private:
  static int64_t batchIndex(const Tensor& t, int64_t r) {
    return t.dtype() == DataType::kI64 ? t.data<int64_t>()[r] : t.data<int32_t>()[r];
  }

  template <typename T>
  void run(const Tensors& inputs, Tensor& out) {
    const T* x = inputs[0]->data<T>();
    const T* rois = inputs[1]->data<T>();
    const Tensor& batch = *inputs[2];
    T* y = out.data<T>();
    const int64_t oh = params_.outputHeight, ow = params_.outputWidth;
    const int64_t H = H_, W = W_, C = C_;
    const bool maxMode = params_.maxMode;
    cpuPool(*this).parallelFor(R_ * C, [&](int64_t begin, int64_t end) {
      for (int64_t rc = begin; rc < end; ++rc) {
        const int64_t r = rc / C, c = rc % C;
        const RoiGeometry g(rois + r * 4, params_);
        const T* plane = x + (batchIndex(batch, r) * C + c) * H * W;
        T* dst = y + rc * oh * ow;
        for (int64_t ph = 0; ph < oh; ++ph) {
          for (int64_t pw = 0; pw < ow; ++pw) {
            double acc = 0;
            bool first = true;
            for (int64_t iy = 0; iy < g.gridH; ++iy) {
              const double py = g.startH + ph * g.binH + (iy + 0.5) * g.binH / static_cast<double>(g.gridH);
              for (int64_t ix = 0; ix < g.gridW; ++ix) {
                const double px = g.startW + pw * g.binW + (ix + 0.5) * g.binW / static_cast<double>(g.gridW);
                double taps[4];
                weightedTaps(plane, H, W, py, px, taps);
                if (!maxMode) {
                  acc += taps[0] + taps[1] + taps[2] + taps[3];
                } else {
                  const double v = std::max(std::max(taps[0], taps[1]), std::max(taps[2], taps[3]));
                  acc = first ? v : std::max(acc, v);
                  first = false;
                }
              }
            }
            dst[ph * ow + pw] = static_cast<T>(maxMode ? acc : acc / static_cast<double>(g.count));
          }
        }
      }
    });
  }

  Node node_;
  RoiAlignParams params_;
  int64_t N_ = 0, C_ = 0, H_ = 0, W_ = 0, R_ = 0;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  RoiAlignParams p;
  if (!RoiAlignParams::parse(node, &p).isOk() || inputs.size() < 3 || !inputs[0] || !inputs[1] || !inputs[2])
    return nullptr;
  const DataType dt = inputs[0]->dtype();
  if (dt != DataType::kF32 && dt != DataType::kF64) return nullptr;
  const DataType it = inputs[2]->dtype();
  if (it != DataType::kI64 && it != DataType::kI32) return nullptr;
  return std::make_unique<CpuRoiAlign>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, RoiAlign, create);

}  // namespace tessera
