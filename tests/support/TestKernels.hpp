// Registering a test's own kernel for a built-in op under a provider name (CustomOp.hpp):
// sessions that list the provider use it instead of the built-in one. Used to break or
// perturb a kernel on purpose and check that the conformance harness or the divergence
// finder notices.
#pragma once
#include <memory>

#include "tessera/CustomOp.hpp"

namespace tessera {
namespace test {

// Registers `Exec` (constructed from the Backend*) as `provider`'s f32 `opType` kernel on
// `backend`, once per process; true when it is registered.
template <class Exec>
bool registerTestKernel(BackendType backend, const char* provider, const char* opType) {
  static const bool registered = [&] {
    CustomKernel k;
    k.backend = backend;
    k.provider = provider;
    k.opType = opType;
    k.dtype = DataType::kF32;
    k.create = [](Backend* b, const Node&, const Tensors&, const Tensors&) -> std::unique_ptr<Execution> {
      return std::make_unique<Exec>(b);
    };
    return registerCustomKernel(k).isOk();
  }();
  return registered;
}

}  // namespace test
}  // namespace tessera
