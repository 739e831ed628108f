// SqueezeExcite: the excitation and scaling of a squeeze-and-excite block (MobileNetV3,
// PP-LCNet), one node where ONNX writes four: for each batch n and channel c,
//   hidden = hidden_activation(W1 . pooled[n] + B1)     (C1 values)
//   gate   = activation(W2 . hidden + B2)                 (C values)
//   Y[n, c, ...] = X[n, c, ...] * gate[c]
// Inputs: X [N, C, H, W], pooled [N, C, 1, 1] (optional: the squeeze, any tensor here; where
// omitted, the op takes X's mean over H x W itself, as the GlobalAveragePool it replaces did),
// W1 [C1, C, 1, 1], B1 [C1] (optional), W2 [C, C1, 1, 1], B2 [C] (optional). Attributes: the
// two activations as FusedActivation writes them (`activation`, `activation_params`,
// `activation_affine` for the gate; `hidden_activation`, `hidden_activation_params`, no
// affine, for the hidden vector). The gate's affine is how a residual `x + x * gate` arrives
// (tools/onnx/FuseResidualScale adds its 1 to the shift).
// Not an ONNX op: the import pass tools/onnx/FuseSqueezeExcite makes it from a
// GlobalAveragePool, Conv 1x1, Conv 1x1 and Mul, so a GPU runs the block in one or two
// dispatches, not four (five with a residual Add).
#pragma once
#include <vector>

#include "ops/FusedActivation.hpp"
#include "tessera/Backend.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct SqueezeExciteParams {
  // The GPU kernels keep the pooled vector and the hidden one in work-group memory.
  static constexpr int64_t kMaxChannels = 1024;
  // Pixels of a channel block one work-group of the GPU kernels scales.
  static constexpr int64_t kTilePixels = 1024;
  enum Input { kX = 0, kPooled, kW1, kB1, kW2, kB2 };

  FusedActivation hidden, gate;

  // Input i of a node's inputs, or nullptr where the node omits it (pooled, B1, B2).
  static Tensor* input(const Tensors& in, Input i) { return static_cast<size_t>(i) < in.size() ? in[i] : nullptr; }
  // Whether the GPU kernels take these inputs: X of rank 4, all f32, the weights constant
  // (they are packed into gpuTable), C and C1 from 1 to kMaxChannels; pooled may be omitted.
  static bool gpuKernelTakes(const Tensors& in);

  static Status parse(const Node& node, SqueezeExciteParams* out) {
    SqueezeExciteParams p;
    TESSERA_RETURN_IF_ERROR(FusedActivation::parse(node, &p.hidden, "hidden_"));
    TESSERA_RETURN_IF_ERROR(FusedActivation::parse(node, &p.gate));
    if (p.hidden.hasAffine())
      return Status::unsupported(node.label() + ": hidden_activation_affine is not supported by SqueezeExcite");
    *out = p;
    return Status::ok();
  }

  // Without a pooled input, whether the GPU kernels take X's means inside every work-group:
  // each group then reads all of X's C x plane values (it needs every channel's mean), so
  // only for a plane of one tile and few reads (PaddleOCR's classifier: all nine blocks;
  // det's smaller levels). Else the global pool's partial sums come first (a dispatch more).
  static bool meansInKernel(int64_t channels, int64_t plane) {
    return plane <= kTilePixels && (channels + 3) / 4 * plane <= 16384;
  }

  // Channel blocks (4 channels) a work-group of the GPU kernels scales. Each group computes
  // the hidden vector again (C * C1 multiply-adds): on a GPU the groups run side by side, so
  // one block a group costs one group's time; on a driver that runs on the CPU (lavapipe,
  // PoCL) they take turns, so one group does them all (per tile of pixels). The environment
  // variable TESSERA_SQUEEZE_EXCITE_BLOCKS=N forces N (tests run both kernels' shapes so).
  static int64_t blocksPerGroup(int64_t channelBlocks, bool cpuDevice);

  // The GPU kernels' weights in one fp32 table: W1 transposed to [C][C1] (a work-group's
  // invocations then read consecutive floats), B1 [C1], W2 [C][C1], B2 [C]; an omitted bias
  // is zeros. All four tensors constant, b1 and b2 may be null.
  static std::vector<float> gpuTable(const Tensor* w1, const Tensor* b1, const Tensor* w2, const Tensor* b2);
};

}  // namespace tessera
