// Tensors of any dtype from per-element double values, and back, for tests whose naive
// references compute in double. The values must be exact in the dtype (small integers,
// multiples of 1/4) for a byte-exact comparison to mean anything.
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/Tessera.hpp"

namespace tessera {
namespace test {

template <typename F>
Tensor typedTensor(const Shape& shape, DataType dtype, F value) {
  Tensor d = Tensor::hostAllocate(shape, DataType::kF64);
  for (int64_t i = 0; i < d.elementCount(); ++i) d.data<double>()[i] = static_cast<double>(value(i));
  Tensor t = Tensor::hostAllocate(shape, dtype);
  convertDataType(d, t);
  return t;
}

inline std::vector<double> toDoubles(const Tensor& t) {
  Tensor d = Tensor::hostAllocate(t.shape(), DataType::kF64);
  convertDataType(t, d);
  return std::vector<double>(d.data<double>(), d.data<double>() + d.elementCount());
}

inline const std::vector<DataType>& integerTypes() {
  static const std::vector<DataType> types = {DataType::kI8, DataType::kI16, DataType::kI32, DataType::kI64,
                                              DataType::kU8, DataType::kU16, DataType::kU32, DataType::kU64};
  return types;
}

inline bool isSignedType(DataType t) {
  return t == DataType::kI8 || t == DataType::kI16 || t == DataType::kI32 || t == DataType::kI64;
}

}  // namespace test
}  // namespace tessera
