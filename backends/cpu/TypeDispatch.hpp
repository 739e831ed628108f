// Runs a generic lambda with the C++ type of a DataType: one kernel template, many dtypes.
//   dispatchNumeric(t.dtype(), [&](auto tag) { using T = typename decltype(tag)::type; ... });
#pragma once
#include <cstdint>

#include "tessera/DataType.hpp"

namespace tessera {

template <typename T> struct TypeTag { using type = T; };

// f32, f64 and every integer type (and bool as uint8-sized bool). Returns false for others.
template <typename Fn>
bool dispatchNumeric(DataType t, Fn&& fn) {
  switch (t) {
    case DataType::kF32: fn(TypeTag<float>{}); return true;
    case DataType::kF64: fn(TypeTag<double>{}); return true;
    case DataType::kI8: fn(TypeTag<int8_t>{}); return true;
    case DataType::kI16: fn(TypeTag<int16_t>{}); return true;
    case DataType::kI32: fn(TypeTag<int32_t>{}); return true;
    case DataType::kI64: fn(TypeTag<int64_t>{}); return true;
    case DataType::kU8: fn(TypeTag<uint8_t>{}); return true;
    case DataType::kU16: fn(TypeTag<uint16_t>{}); return true;
    case DataType::kU32: fn(TypeTag<uint32_t>{}); return true;
    case DataType::kU64: fn(TypeTag<uint64_t>{}); return true;
    case DataType::kBool: fn(TypeTag<bool>{}); return true;
    default: return false;
  }
}

// Byte-moving ops (Concat, Transpose, Gather...) only need the element size.
template <typename Fn>
bool dispatchBySize(size_t elementSize, Fn&& fn) {
  switch (elementSize) {
    case 1: fn(TypeTag<uint8_t>{}); return true;
    case 2: fn(TypeTag<uint16_t>{}); return true;
    case 4: fn(TypeTag<uint32_t>{}); return true;
    case 8: fn(TypeTag<uint64_t>{}); return true;
    default: return false;
  }
}

}  // namespace tessera
