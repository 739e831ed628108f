// The shared encoding of LayerNormalization and InstanceNormalization on OpenCL: both
// normalise rows of contiguous elements (shaders/opencl/row_norm.cl), a row per work-item when
// short, a row per work-group of 64 when long.
#pragma once
#include "backends/opencl/OpenClExecution.hpp"

namespace tessera {

// Where row r's element i finds its scale and bias (see row_norm.cl): index
// (r % channels) * row + i * element.
struct RowNormLayout {
  int64_t rows = 0, length = 0, channels = 1;
  int64_t scaleRow = 0, scaleElement = 0, biasRow = 0, biasElement = 0;
};

class OpenClRowNorm : public OpenClExecution {
 public:
  explicit OpenClRowNorm(Backend* b) : OpenClExecution(b) {}

 protected:
  // bias, mean and invStdDev may be null (none; the statistics not written).
  Status encodeRowNorm(const RowNormLayout& l, float epsilon, const Tensor* x, const Tensor* scale, const Tensor* bias,
                       const Tensor* y, const Tensor* mean, const Tensor* invStdDev);
};

}  // namespace tessera
