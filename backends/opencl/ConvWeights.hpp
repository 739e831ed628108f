// The base of Conv and ConvTranspose executions: weights computed in the graph (not known
// at planning) are packed on the device by kernels enqueued before the convolution.
#pragma once
#include "backends/opencl/OpenClExecution.hpp"

namespace tessera {

class OpenClConvBase : public OpenClExecution {
 public:
  using OpenClExecution::OpenClExecution;

 protected:
  // Allocates `weights`/`bias` and adds the kernels that pack `w` (and `b`, may be null)
  // into the conv kernels' layouts (dense, or depthwise).
  Status packOnDevice(const Tensor* w, const Tensor* b, int64_t M, int64_t C, int64_t group, int64_t taps,
                      int64_t inC4, int64_t outC4, bool depthwise, bool transposed, ClBuffer* weights,
                      ClBuffer* bias);
};

}  // namespace tessera
