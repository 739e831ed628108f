// CPU NonMaxSuppression (semantics: ops/NonMaxSuppression.hpp). Each box's corners and area
// are computed once per run; then each (batch, class) pair, in parallel, keeps its candidates
// above the score threshold, sorts them (O(n log n)) and selects greedily into its own slice
// of a buffer made at resize. The output is allocated once the total count is known.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/NonMaxSuppression.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

struct Box {
  float xMin, yMin, xMax, yMax, area;
};

struct Candidate {
  float score;
  int64_t index;
};

// The suppression rule of the ONNX reference and ONNX Runtime, on precomputed corners.
bool suppresses(const Box& a, const Box& b, float iouThreshold) {
  const float ixMin = std::max(a.xMin, b.xMin), ixMax = std::min(a.xMax, b.xMax);
  if (ixMax <= ixMin) return false;
  const float iyMin = std::max(a.yMin, b.yMin), iyMax = std::min(a.yMax, b.yMax);
  if (iyMax <= iyMin) return false;
  const float intersection = (ixMax - ixMin) * (iyMax - iyMin);
  const float unionArea = a.area + b.area - intersection;
  if (intersection <= 0.f || a.area <= 0.f || b.area <= 0.f || unionArea <= 0.f) return false;
  return intersection / unionArea > iouThreshold;
}

Box cornersOf(const float* b, bool centerPointBox) {
  Box box;
  if (centerPointBox) {  // [x_center, y_center, width, height]
    const float halfW = b[2] / 2, halfH = b[3] / 2;
    box = {b[0] - halfW, b[1] - halfH, b[0] + halfW, b[1] + halfH, 0.f};
  } else {  // [y1, x1, y2, x2], either corner first
    box = {std::min(b[1], b[3]), std::min(b[0], b[2]), std::max(b[1], b[3]), std::max(b[0], b[2]), 0.f};
  }
  box.area = (box.xMax - box.xMin) * (box.yMax - box.yMin);
  return box;
}

// An optional one-element input, or `absent`.
template <typename T>
T scalarOr(const Tensors& inputs, size_t i, T absent, bool* present = nullptr) {
  const bool has = i < inputs.size() && inputs[i] && inputs[i]->elementCount() == 1;
  if (present) *present = has;
  return has ? inputs[i]->data<T>()[0] : absent;
}

class CpuNonMaxSuppression final : public Execution {
 public:
  CpuNonMaxSuppression(Backend* b, const NonMaxSuppressionParams& p) : Execution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    batches_ = inputs[1]->dim(0);
    classes_ = inputs[1]->dim(1);
    spatial_ = inputs[1]->dim(2);
    boxes_.resize(static_cast<size_t>(batches_ * spatial_));
    candidates_.resize(static_cast<size_t>(batches_ * classes_ * spatial_));
    selected_.resize(candidates_.size());
    selectedCount_.resize(static_cast<size_t>(batches_ * classes_));
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const int64_t maxOut = std::min(std::max<int64_t>(scalarOr<int64_t>(inputs, 2, 0), 0), spatial_);
    const float iouThreshold = scalarOr<float>(inputs, 3, 0.f);
    bool hasScoreThreshold = false;
    const float scoreThreshold = scalarOr<float>(inputs, 4, 0.f, &hasScoreThreshold);
    if (!(iouThreshold >= 0.f && iouThreshold <= 1.f))
      return Status::invalid("iou_threshold " + std::to_string(iouThreshold) + " is not in [0, 1]");

    if (maxOut == 0) {  // nothing can be selected
      *outputs[0] = Tensor::hostAllocate({0, 3}, DataType::kI64);
      return Status::ok();
    }
    const float* rawBoxes = inputs[0]->data<float>();
    cpuPool(*this).parallelFor(batches_ * spatial_, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) boxes_[i] = cornersOf(rawBoxes + 4 * i, params_.centerPointBox);
    }, 1024);

    const float* scores = inputs[1]->data<float>();
    cpuPool(*this).parallelFor(batches_ * classes_, [&](int64_t begin, int64_t end) {
      for (int64_t pair = begin; pair < end; ++pair) {
        const float* s = scores + pair * spatial_;
        Candidate* cand = candidates_.data() + pair * spatial_;
        int64_t n = 0;
        for (int64_t i = 0; i < spatial_; ++i)
          if (!std::isnan(s[i]) && (!hasScoreThreshold || s[i] > scoreThreshold)) cand[n++] = {s[i], i};
        selectedCount_[pair] = select(cand, n, boxes_.data() + (pair / classes_) * spatial_, maxOut, iouThreshold,
                                      selected_.data() + pair * spatial_);
      }
    });

    int64_t total = 0;
    for (int64_t c : selectedCount_) total += c;
    *outputs[0] = Tensor::hostAllocate({total, 3}, DataType::kI64);
    int64_t* y = outputs[0]->data<int64_t>();
    for (int64_t pair = 0; pair < batches_ * classes_; ++pair)
      for (int64_t k = 0; k < selectedCount_[pair]; ++k) {
        *y++ = pair / classes_;
        *y++ = pair % classes_;
        *y++ = selected_[pair * spatial_ + k];
      }
    return Status::ok();
  }

 private:
  // Greedy selection among n candidates of one (batch, class); returns how many it kept.
  static int64_t select(Candidate* cand, int64_t n, const Box* boxes, int64_t maxOut, float iouThreshold,
                        int64_t* kept) {
    std::sort(cand, cand + n, [](const Candidate& a, const Candidate& b) {
      return a.score > b.score || (a.score == b.score && a.index < b.index);
    });
    int64_t count = 0;
    for (int64_t i = 0; i < n && count < maxOut; ++i) {
      const Box& box = boxes[cand[i].index];
      bool keep = true;
      for (int64_t k = 0; k < count && keep; ++k) keep = !suppresses(boxes[kept[k]], box, iouThreshold);
      if (keep) kept[count++] = cand[i].index;
    }
    return count;
  }

  NonMaxSuppressionParams params_;
  int64_t batches_ = 0, classes_ = 0, spatial_ = 0;
  std::vector<Box> boxes_;
  std::vector<Candidate> candidates_;
  std::vector<int64_t> selected_, selectedCount_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  NonMaxSuppressionParams p;
  if (!NonMaxSuppressionParams::parse(node, &p).isOk()) return nullptr;
  if (inputs[0]->dtype() != DataType::kF32 || inputs[1]->dtype() != DataType::kF32) return nullptr;
  return std::make_unique<CpuNonMaxSuppression>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, NonMaxSuppression, create);

}  // namespace tessera
