// Range(start, limit, delta): scalars of one numeric type; the output has
// max(ceil((limit - start) / delta), 0) elements start + i * delta.
#pragma once
#include <cstdint>

#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

// The element count for these scalar tensors (host data of the same dtype), or an error
// naming the cause (delta of 0, unsupported type).
Status rangeElementCount(const Tensor& start, const Tensor& limit, const Tensor& delta,
                         int64_t* count);

}  // namespace tessera
