// Cast: converts to the data type named by the `to` attribute (an ONNX TensorProto type).
#pragma once
#include <cstdint>

#include "tessera/DataType.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct CastParams {
  DataType to = DataType::kF32;

  static Status parse(const Node& node, CastParams* out);
};

// The DataType of an ONNX TensorProto.DataType value; kUnknown for ones Tessera has no type
// for (complex, float8). STRING maps to kString so callers can name it in errors.
DataType dataTypeFromOnnx(int64_t onnxType);

}  // namespace tessera
