// HannWindow, HammingWindow, BlackmanWindow (opset 17): generalized cosine windows.
//
// The scalar integer input `size` gives the length; periodic = 1 (the default) divides by
// N = size, periodic = 0 (symmetric) by N = size - 1. Element n is
//   a0 - a1 * cos(2*pi*n/N) + a2 * cos(4*pi*n/N)
// with (a0, a1, a2) = (0.5, 0.5, 0) for Hann, (25/46, 21/46, 0) for Hamming and
// (0.42, 0.5, 0.08) for Blackman, computed in double and written in output_datatype (an
// ONNX TensorProto type, default float). As in ONNX's definition, a symmetric window of
// size 1 divides 0 by 0 (NaN; 0 in an integer output type).
#pragma once
#include <string>

#include "ops/Cast.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct CosineWindowParams {
  double a0 = 0.5, a1 = 0.5, a2 = 0;
  bool periodic = true;
  DataType output = DataType::kF32;

  static Status parse(const Node& node, CosineWindowParams* out) {
    CosineWindowParams p;
    if (node.opType == "HammingWindow") {
      p.a0 = 25.0 / 46.0;
      p.a1 = 21.0 / 46.0;
    } else if (node.opType == "BlackmanWindow") {
      p.a0 = 0.42;
      p.a1 = 0.5;
      p.a2 = 0.08;
    } else if (node.opType != "HannWindow") {
      return Status::internal(node.label() + ": not a window op");
    }
    p.periodic = node.attrs.getInt("periodic", 1) != 0;
    const int64_t onnxType = node.attrs.getInt("output_datatype", 1);
    p.output = dataTypeFromOnnx(onnxType);
    if (p.output == DataType::kUnknown || p.output == DataType::kString || p.output == DataType::kBool)
      return Status::invalid(node.label() + ": output_datatype " + std::to_string(onnxType) + " is not a numeric type");
    *out = p;
    return Status::ok();
  }
};

}  // namespace tessera
