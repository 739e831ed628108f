// Conversions from ONNX protobuf values (TensorProto, element types) to Tessera's types,
// shared by the model importer and the test-data loader.
#pragma once
#include <cstdint>
#include <string>

#include "tessera_onnx/onnx.pb.h"
#include "tessera/DataType.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {
namespace onnximport {

// ONNX TensorProto::DataType -> DataType. STRING maps to kString (which names it in
// errors); complex and unknown element types are kUnsupported. `what` names the value.
Status dataTypeFromOnnx(int32_t elemType, const std::string& what, DataType* out);

// A host tensor holding a copy of the proto's data (raw_data or the typed field), named
// after the proto. Checks that the data's size matches the dims and the element type.
Status tensorFromProto(const tessera_onnx::TensorProto& proto, Tensor* out);

// Whole file into `bytes`; a clear error when it cannot be read.
Status readFileBytes(const std::string& path, std::string* bytes);

}  // namespace onnximport
}  // namespace tessera
