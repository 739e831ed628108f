// Host tensors whose memory the caller fills completely, so zeroing it first would be a
// wasted pass (Session::run's outputs). Tensor::hostAllocate is this plus the zeroing.
#pragma once
#include "tessera/Tensor.hpp"

namespace tessera {

Tensor hostAllocateUninitialised(Shape shape, DataType dtype, Layout layout = Layout::kNCHW);

}  // namespace tessera
