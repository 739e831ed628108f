// ONNX import: a model file (or bytes) becomes a Graph; a serialized TensorProto (the ONNX
// backend-test data files) becomes a host Tensor.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

// Imports opsets up to 17 (each node records its domain's opset in Node::opset).
// Initializers become host tensors in Graph::initializers; Conv followed by
// BatchNormalization on constant weights is folded into one Conv. Fails with a message
// naming the cause for malformed files, unsupported features (external data, sub-graph
// attributes, string tensors) and ops this build does not know (all of them listed).
Status loadOnnxModel(const std::string& path, std::shared_ptr<Graph>* out);
Status loadOnnxModelFromBytes(const void* data, size_t size, std::shared_ptr<Graph>* out);

// Reads one serialized TensorProto (e.g. test_data_set_0/input_0.pb). `name`, when given,
// receives the tensor's name as stored in the file (may be empty).
Status loadOnnxTensor(const std::string& path, Tensor* out, std::string* name = nullptr);

}  // namespace tessera
