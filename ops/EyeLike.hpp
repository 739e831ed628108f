// EyeLike (opset 9): a 2-D tensor of input 0's shape with ones on the diagonal shifted by `k`
// (element (i, j) is 1 where j - i == k; k > 0 above the main diagonal) and zeros elsewhere.
// `dtype` (an ONNX TensorProto type) picks the output type; the input's when absent. The
// input's values are not read.
#pragma once
#include <string>

#include "ops/Cast.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct EyeLikeParams {
  int64_t k = 0;
  DataType dtype = DataType::kUnknown;  // kUnknown: the input's

  static Status parse(const Node& node, EyeLikeParams* out) {
    out->k = node.attrs.getInt("k", 0);
    out->dtype = DataType::kUnknown;
    if (node.attrs.has("dtype")) {
      const int64_t onnxType = node.attrs.getInt("dtype", 0);
      out->dtype = dataTypeFromOnnx(onnxType);
      if (out->dtype == DataType::kUnknown || out->dtype == DataType::kString)
        return Status::unsupported(node.label() + ": dtype " + std::to_string(onnxType) + " is not supported");
    }
    return Status::ok();
  }
};

}  // namespace tessera
