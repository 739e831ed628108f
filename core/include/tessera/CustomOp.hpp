// Extending Tessera from your own program, without rebuilding it: new op types (an ONNX
// node of your own domain, or one built in C++) and kernels that replace or add to the
// built-in ones on a backend. See docs/CUSTOM_KERNELS.md. Thread safety: registering is
// safe while other threads load models, plan and run; a Session planned before a
// registration keeps the kernels it chose.
#pragma once
#include <string>
#include <vector>

#include "tessera/Registry.hpp"

namespace tessera {

// A kernel for one op on one backend, published under a provider name.
//  - When a Session's options list the provider (SessionOptions::providers), its kernels
//    take precedence over the built-in ones for the same op.
//  - For an op with no built-in kernel on that backend (a custom op), registered kernels are
//    used whichever provider published them.
struct CustomKernel {
  BackendType backend = BackendType::kCPU;
  std::string provider;                 // e.g. "acme"; must not be empty
  std::string domain;                   // "" for the ONNX domain
  std::string opType;                   // "Relu", "MyScale"
  DataType dtype = DataType::kUnknown;  // dtype of input 0 it handles; kUnknown = any
  ExecutionCreator create;              // returns nullptr for inputs it does not handle
};

// Fails (kInvalidArgument) on a kernel with no provider, op type or creator, and on a
// duplicate: the same backend, provider, domain, op type and dtype registered twice.
Status registerCustomKernel(CustomKernel kernel);

// A new op type with its shape/dtype function (attributes are read by name from
// ShapeContext::node.attrs). Fails on an empty function, and on an op type the domain
// already has. Register before loading a model that uses it.
Status registerCustomOp(const std::string& domain, const std::string& opType, ShapeFunction shape);

// The kernel to use for `node` on `backend`, or nullptr: first a kernel of one of
// `providers` (in order), else, when `builtinExists` is false, any registered kernel.
const ExecutionCreator* findCustomKernel(BackendType backend, const std::vector<std::string>& providers,
                                         const Node& node, DataType inputType, bool builtinExists);

}  // namespace tessera
