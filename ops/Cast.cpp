#include "ops/Cast.hpp"

namespace tessera {

DataType dataTypeFromOnnx(int64_t onnxType) {
  switch (onnxType) {
    case 1: return DataType::kF32;
    case 2: return DataType::kU8;
    case 3: return DataType::kI8;
    case 4: return DataType::kU16;
    case 5: return DataType::kI16;
    case 6: return DataType::kI32;
    case 7: return DataType::kI64;
    case 8: return DataType::kString;
    case 9: return DataType::kBool;
    case 10: return DataType::kF16;
    case 11: return DataType::kF64;
    case 12: return DataType::kU32;
    case 13: return DataType::kU64;
    case 16: return DataType::kBF16;
    default: return DataType::kUnknown;  // complex64/128, float8 variants
  }
}

Status CastParams::parse(const Node& node, CastParams* out) {
  const Attribute* to = node.attrs.find("to");
  if (!to) return Status::invalid(node.label() + ": the 'to' attribute is required");
  CastParams p;
  p.to = dataTypeFromOnnx(to->i);
  if (p.to == DataType::kUnknown) {
    return Status::unsupported(node.label() + ": cast to ONNX type " + std::to_string(to->i) +
                               " is not supported");
  }
  *out = p;
  return Status::ok();
}

}  // namespace tessera
