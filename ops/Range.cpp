#include "ops/Range.hpp"

#include <cmath>
#include <type_traits>

#include "backends/cpu/TypeDispatch.hpp"

namespace tessera {

Status rangeElementCount(const Tensor& start, const Tensor& limit, const Tensor& delta,
                         int64_t* count) {
  Status status;
  const bool known = dispatchNumeric(start.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      status = Status::unsupported("Range of bool is not defined");
    } else {
      const T s = *start.data<T>(), l = *limit.data<T>(), d = *delta.data<T>();
      if (d == T(0)) {
        status = Status::invalid("delta is 0");
        return;
      }
      // In double, as ONNX specifies: ceil((limit - start) / delta).
      const double n = std::ceil((static_cast<double>(l) - static_cast<double>(s)) /
                                 static_cast<double>(d));
      if (!(n < 9.0e18)) {
        status = Status::invalid("the range has too many elements");
        return;
      }
      *count = n > 0 ? static_cast<int64_t>(n) : 0;
    }
  });
  if (!known) return Status::unsupported(std::string("Range of ") + dataTypeName(start.dtype()));
  return status;
}

}  // namespace tessera
