// Index helpers for the naive references in the data-movement and reduction op tests:
// flat row-major offsets <-> multi-indices, and typed tensors filled with distinct values.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/Tessera.hpp"

namespace tessera {
namespace test {

inline std::vector<int64_t> unravelIndex(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

inline int64_t ravelIndex(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

// A tensor whose element i holds value(i), converted to T.
template <typename T, typename F>
Tensor filledTensor(const Shape& shape, F value) {
  Tensor t = Tensor::hostAllocate(shape, DataTypeOf<T>::value);
  for (int64_t i = 0; i < t.elementCount(); ++i) t.data<T>()[i] = static_cast<T>(value(i));
  return t;
}

inline Tensor iotaTensor(const Shape& shape, DataType dtype) {
  Tensor t = Tensor::hostAllocate(shape, dtype);
  for (int64_t i = 0; i < t.elementCount(); ++i) {
    switch (dtype) {
      case DataType::kF32: t.data<float>()[i] = static_cast<float>(i); break;
      case DataType::kF64: t.data<double>()[i] = static_cast<double>(i); break;
      case DataType::kI64: t.data<int64_t>()[i] = i * 7 - 3; break;
      case DataType::kI32: t.data<int32_t>()[i] = static_cast<int32_t>(i * 5 - 2); break;
      case DataType::kU8: t.data<uint8_t>()[i] = static_cast<uint8_t>(i * 3); break;
      case DataType::kF16: t.data<uint16_t>()[i] = floatToHalf(static_cast<float>(i % 2048)); break;
      default: break;
    }
  }
  return t;
}

// An omitted optional input for runOp.
inline Tensor omittedInput() {
  Tensor t;
  t.setDataType(DataType::kUnknown);
  return t;
}

// The naive data-movement reference: output element at multi-index i is the input element
// at flat offset source(i). Copies bytes, so it works for every dtype.
template <typename F>
Tensor movedReference(const Tensor& in, const Shape& outShape, F source) {
  Tensor out = Tensor::hostAllocate(outShape, in.dtype());
  const size_t elem = dataTypeSize(in.dtype());
  for (int64_t o = 0; o < out.elementCount(); ++o) {
    const int64_t s = source(unravelIndex(o, outShape));
    std::memcpy(out.data<char>() + o * elem, in.data<char>() + s * elem, elem);
  }
  return out;
}

// Exact comparison (shape, dtype and bytes): data movement must not change any bit.
inline void expectSameBytes(const Tensor& actual, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(shapeToString(actual.shape()), shapeToString(expected.shape())) << what;
  ASSERT_EQ(std::string(dataTypeName(actual.dtype())), dataTypeName(expected.dtype())) << what;
  const size_t bytes = static_cast<size_t>(expected.elementCount()) * dataTypeSize(expected.dtype());
  if (bytes == 0) return;
  EXPECT_EQ(0, std::memcmp(actual.data(), expected.data(), bytes)) << what;
}

}  // namespace test
}  // namespace tessera
