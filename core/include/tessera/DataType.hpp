// Element data types and their sizes; fp16/bf16 conversion helpers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera {

enum class DataType : uint8_t {
  kUnknown = 0,
  kF32, kF16, kBF16, kF64,
  kI8, kI16, kI32, kI64,
  kU8, kU16, kU32, kU64,
  kBool,
  kString,  // only to name it in errors; no kernel takes strings
};

size_t dataTypeSize(DataType t);
const char* dataTypeName(DataType t);  // "f32", "i64", ...
bool isFloat(DataType t);    // f16, bf16, f32, f64
bool isInteger(DataType t);  // signed or unsigned integers (not bool)

uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
uint16_t floatToBFloat16(float f);
float bfloat16ToFloat(uint16_t h);
// A float to int64, saturated at the type's limits and NaN as 0: C++ leaves out-of-range
// conversions undefined, and malformed models and Cast inputs produce them.
int64_t saturatingInt64(double v);

// Maps a C++ element type to its DataType, for typed accessors and kernels.
template <typename T> struct DataTypeOf;
template <> struct DataTypeOf<float> { static constexpr DataType value = DataType::kF32; };
template <> struct DataTypeOf<double> { static constexpr DataType value = DataType::kF64; };
template <> struct DataTypeOf<int8_t> { static constexpr DataType value = DataType::kI8; };
template <> struct DataTypeOf<int16_t> { static constexpr DataType value = DataType::kI16; };
template <> struct DataTypeOf<int32_t> { static constexpr DataType value = DataType::kI32; };
template <> struct DataTypeOf<int64_t> { static constexpr DataType value = DataType::kI64; };
template <> struct DataTypeOf<uint8_t> { static constexpr DataType value = DataType::kU8; };
template <> struct DataTypeOf<uint16_t> { static constexpr DataType value = DataType::kU16; };
template <> struct DataTypeOf<uint32_t> { static constexpr DataType value = DataType::kU32; };
template <> struct DataTypeOf<uint64_t> { static constexpr DataType value = DataType::kU64; };
template <> struct DataTypeOf<bool> { static constexpr DataType value = DataType::kBool; };

}  // namespace tessera
