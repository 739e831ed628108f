// Conv and ConvTranspose: attributes, and the geometry they give for concrete x/W shapes.
//
// Conv inputs: X, W, optional B (ONNX), and Tessera's optional Z (index kConvSumInput), a tensor
// of exactly Y's shape added after the bias and before the fused activation:
// Y = activation(conv(X, W) + B + Z), ONNX Runtime's FusedConv order. The import pass
// tools/onnx/FuseConvAdd sets it from a Conv -> Add pair; every backend's Conv honours it.
// ConvTranspose takes no Z.
#pragma once
#include "tessera/Backend.hpp"
#include <cstdint>
#include <vector>

#include "ops/FusedActivation.hpp"
#include "ops/Window.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"

namespace tessera {

constexpr size_t kConvSumInput = 3;  // Z

// The Conv's Z input, or nullptr when it has none.
inline const Tensor* convSumInput(const Tensors& inputs) {
  return inputs.size() > kConvSumInput ? inputs[kConvSumInput] : nullptr;
}

struct ConvParams {
  WindowParams window;
  int64_t group = 1;
  std::vector<int64_t> outputPadding;  // ConvTranspose only; empty: all 0
  std::vector<int64_t> outputShape;    // ConvTranspose only; spatial (or full) output shape
  FusedActivation activation;          // Conv only: applied to the output (import pass)

  static Status parse(const Node& node, ConvParams* out);
};

// Everything a kernel needs: the window over the spatial dimensions plus channel counts.
// For Conv the window maps output positions to input windows; for ConvTranspose `input`
// and `output` are x's and y's spatial extents and the window is the one of the Conv whose
// gradient it is (y position = x position * stride - padBegin + k * dilation).
struct ConvShape {
  WindowGeometry window;
  int64_t batch = 0;
  int64_t inChannels = 0;
  int64_t outChannels = 0;
  int64_t group = 1;

  int64_t inPerGroup() const { return inChannels / group; }
  int64_t outPerGroup() const { return outChannels / group; }
  Shape outputShape() const;
};

// x: [N, C, spatial...], w: [M, C/group, kernel...].
Status resolveConv(const ConvParams& p, const Shape& x, const Shape& w, ConvShape* out);
// x: [N, C, spatial...], w: [C, M/group, kernel...].
Status resolveConvTranspose(const ConvParams& p, const Shape& x, const Shape& w, ConvShape* out);

// Work of a convolution for profiles, the same on every backend: each output element is a
// dot product over w's per-output-channel extent (C/group x kernel).
inline WorkEstimate convWork(const Tensors& in, const Tensors& out) {
  const Shape& w = in[1]->shape();
  const double perOutput = static_cast<double>(elementCount(w)) / static_cast<double>(w[0]);
  WorkEstimate e;
  e.flops = 2.0 * perOutput * static_cast<double>(out[0]->elementCount());
  for (const Tensor* t : in) if (t) e.bytes += static_cast<double>(t->byteSize());
  e.bytes += static_cast<double>(out[0]->byteSize());
  return e;
}
// ConvTranspose: every input element scatters over w's per-input-channel extent.
inline WorkEstimate convTransposeWork(const Tensors& in, const Tensors& out) {
  const Shape& w = in[1]->shape();
  const double perInput = static_cast<double>(elementCount(w)) / static_cast<double>(w[0]);
  WorkEstimate e;
  e.flops = 2.0 * perInput * static_cast<double>(in[0]->elementCount());
  for (const Tensor* t : in) if (t) e.bytes += static_cast<double>(t->byteSize());
  e.bytes += static_cast<double>(out[0]->byteSize());
  return e;
}

}  // namespace tessera
