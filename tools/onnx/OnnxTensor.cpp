// TensorProto -> Tensor. Every size is checked against the dims before copying, so a
// malformed file yields an error instead of reading past a buffer.
#include "tools/onnx/OnnxTensor.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace tessera {
namespace onnximport {
namespace {

// Largest element count we accept; keeps byte sizes far from overflowing size_t.
constexpr int64_t kMaxElements = int64_t(1) << 40;

std::string tensorLabel(const tessera_onnx::TensorProto& p) {
  return "tensor '" + p.name() + "'";
}

Status checkedElementCount(const Shape& dims, const std::string& what, int64_t* out) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return Status::invalid(what + " has a negative dimension in " + shapeToString(dims));
    if (d != 0 && n > kMaxElements / d) {
      return Status::invalid(what + " is too large (" + shapeToString(dims) + ")");
    }
    n *= d;
  }
  *out = n;
  return Status::ok();
}

// Copies `count` values of a repeated field into the tensor, narrowing to the storage type.
template <typename Dst, typename Field>
void copyNarrowed(const Field& field, Tensor* t) {
  Dst* dst = t->data<Dst>();
  for (int i = 0; i < field.size(); ++i) dst[i] = static_cast<Dst>(field.Get(i));
}

// The typed-field encodings of TensorProto: which repeated field holds which element type
// (everything 32 bits or narrower travels in int32_data; f16/bf16 as their bit patterns).
// Returns how many values that field holds.
int64_t typedFieldCount(const tessera_onnx::TensorProto& p, DataType dtype, const char** field) {
  switch (dtype) {
    case DataType::kF32: *field = "float_data"; return p.float_data_size();
    case DataType::kF64: *field = "double_data"; return p.double_data_size();
    case DataType::kI64: *field = "int64_data"; return p.int64_data_size();
    case DataType::kU32:
    case DataType::kU64: *field = "uint64_data"; return p.uint64_data_size();
    default: *field = "int32_data"; return p.int32_data_size();
  }
}

// Copies the typed field (its size already checked) into the tensor.
Status copyTypedField(const tessera_onnx::TensorProto& p, Tensor* t) {
  switch (t->dtype()) {
    case DataType::kF32: copyNarrowed<float>(p.float_data(), t); break;
    case DataType::kF64: copyNarrowed<double>(p.double_data(), t); break;
    case DataType::kI64: copyNarrowed<int64_t>(p.int64_data(), t); break;
    case DataType::kU32: copyNarrowed<uint32_t>(p.uint64_data(), t); break;
    case DataType::kU64: copyNarrowed<uint64_t>(p.uint64_data(), t); break;
    case DataType::kI32: copyNarrowed<int32_t>(p.int32_data(), t); break;
    case DataType::kI16: copyNarrowed<int16_t>(p.int32_data(), t); break;
    case DataType::kI8: copyNarrowed<int8_t>(p.int32_data(), t); break;
    case DataType::kU16:
    case DataType::kF16:
    case DataType::kBF16: copyNarrowed<uint16_t>(p.int32_data(), t); break;
    case DataType::kU8: copyNarrowed<uint8_t>(p.int32_data(), t); break;
    case DataType::kBool: {
      bool* dst = t->data<bool>();
      for (int i = 0; i < p.int32_data_size(); ++i) dst[i] = p.int32_data(i) != 0;
      break;
    }
    default:
      return Status::unsupported(tensorLabel(p) + ": data type " + dataTypeName(t->dtype()) +
                                 " has no typed-field encoding");
  }
  return Status::ok();
}

}  // namespace

Status dataTypeFromOnnx(int32_t elemType, const std::string& what, DataType* out) {
  using TP = tessera_onnx::TensorProto;
  switch (elemType) {
    case TP::FLOAT: *out = DataType::kF32; return Status::ok();
    case TP::UINT8: *out = DataType::kU8; return Status::ok();
    case TP::INT8: *out = DataType::kI8; return Status::ok();
    case TP::UINT16: *out = DataType::kU16; return Status::ok();
    case TP::INT16: *out = DataType::kI16; return Status::ok();
    case TP::INT32: *out = DataType::kI32; return Status::ok();
    case TP::INT64: *out = DataType::kI64; return Status::ok();
    case TP::STRING: *out = DataType::kString; return Status::ok();
    case TP::BOOL: *out = DataType::kBool; return Status::ok();
    case TP::FLOAT16: *out = DataType::kF16; return Status::ok();
    case TP::DOUBLE: *out = DataType::kF64; return Status::ok();
    case TP::UINT32: *out = DataType::kU32; return Status::ok();
    case TP::UINT64: *out = DataType::kU64; return Status::ok();
    case TP::BFLOAT16: *out = DataType::kBF16; return Status::ok();
    case TP::COMPLEX64:
      return Status::unsupported(what + " has data type complex64, which Tessera does not support");
    case TP::COMPLEX128:
      return Status::unsupported(what + " has data type complex128, which Tessera does not support");
    default:
      return Status::unsupported(what + " has ONNX data type " + std::to_string(elemType) +
                                 ", which Tessera does not support");
  }
}

Status tensorFromProto(const tessera_onnx::TensorProto& p, Tensor* out) {
  const std::string label = tensorLabel(p);
  if (p.data_location() == tessera_onnx::TensorProto::EXTERNAL || p.external_data_size() > 0) {
    return Status::unsupported(label + " stores its data in an external file, which Tessera "
                               "does not support (save the model with the data embedded)");
  }
  if (p.has_segment()) {
    return Status::unsupported(label + " is segmented, which Tessera does not support");
  }
  DataType dtype;
  TESSERA_RETURN_IF_ERROR(dataTypeFromOnnx(p.data_type(), label, &dtype));
  if (dtype == DataType::kString) {
    return Status::unsupported(label + " holds strings, which Tessera does not support");
  }
  Shape dims(p.dims().begin(), p.dims().end());
  int64_t count = 0;
  TESSERA_RETURN_IF_ERROR(checkedElementCount(dims, label, &count));

  // The file's own bytes must hold every element before anything is allocated: dims are
  // only a claim (2^31 elements over a few bytes of data cost seconds and gigabytes).
  const size_t bytes = static_cast<size_t>(count) * dataTypeSize(dtype);
  if (p.has_raw_data()) {
    if (p.raw_data().size() != bytes) {
      std::ostringstream m;
      m << label << ": raw_data holds " << p.raw_data().size() << " bytes but "
        << dataTypeName(dtype) << " " << shapeToString(dims) << " needs " << bytes;
      return Status::invalid(m.str());
    }
  } else {
    const char* field = "";
    const int64_t have = typedFieldCount(p, dtype, &field);
    if (have != count) {
      std::ostringstream m;
      m << label << ": " << field << " holds " << have << " values but shape " << shapeToString(dims) << " needs "
        << count;
      return Status::invalid(m.str());
    }
  }

  Tensor t = Tensor::hostAllocate(dims, dtype);
  t.setName(p.name());
  t.setConstant(true);
  if (p.has_raw_data()) {
    // ONNX raw data is little-endian, as is every host Tessera runs on.
    if (bytes > 0) std::memcpy(t.data(), p.raw_data().data(), bytes);
    if (dtype == DataType::kBool) {
      // Normalise to 0/1 so kernels may treat bools as bytes without surprise.
      uint8_t* b = t.data<uint8_t>();
      for (int64_t i = 0; i < count; ++i) b[i] = b[i] != 0;
    }
  } else {
    TESSERA_RETURN_IF_ERROR(copyTypedField(p, &t));
  }
  *out = std::move(t);
  return Status::ok();
}

Status readFileBytes(const std::string& path, std::string* bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status::invalid("'" + path + "' is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::notFound("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::invalid("cannot read '" + path + "'");
  *bytes = ss.str();
  return Status::ok();
}

}  // namespace onnximport
}  // namespace tessera
