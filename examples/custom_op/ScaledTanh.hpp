// com.example::ScaledTanh, an op Tessera does not know: y = alpha * tanh(beta * x) + B[c],
// with X [N, C, H, W] and B [C] a constant (an initializer). One file per backend registers a
// kernel for it; main.cpp runs the model on every backend and checks that they agree.
#pragma once
#include "tessera/Tessera.hpp"

namespace example {

struct ScaledTanhParams {
  float alpha, beta;
  static ScaledTanhParams from(const tessera::Node& n) {
    return {n.attrs.getFloat("alpha", 1.f), n.attrs.getFloat("beta", 1.f)};
  }
};

// The op type and its shape function (scaled_tanh_cpu.cpp).
tessera::Status registerScaledTanhOp();

// One kernel per backend. A registration returns Status::unavailable when this Tessera was
// built without that backend.
tessera::Status registerScaledTanhCpu();     // scaled_tanh_cpu.cpp
tessera::Status registerScaledTanhOpenCl();  // scaled_tanh_opencl.cpp
tessera::Status registerScaledTanhVulkan();  // scaled_tanh_vulkan.cpp

}  // namespace example
