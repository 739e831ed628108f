// The convolutions issue 9 names: GEMM-shaped ones (3x3, 1x1, ConvTranspose k2 s2), judged
// by %peak; depthwise and a network's first conv (3 input channels), judged by their
// bandwidth bound. All with bias; the convs padded by k/2 ("same" at stride 1). Also a
// pointwise conv with few input channels (PP-OCRv4 det's 16 -> 32 at 320x320), bound by
// memory: the CPU's direct kernel for those (ConvPointwise.hpp), PP-OCRv4 rec's 5x5
// depthwise on its 6x160 feature map, and MobileNetV2's last depthwise convs (many channels
// on small planes, ReLU6 fused).
#include "KernelBench.hpp"

namespace tessera {
namespace bench {
namespace {

Attributes convAttrs(int64_t k, int64_t stride, int64_t pad, int64_t group = 1) {
  Attributes a;
  a.setInts("kernel_shape", {k, k});
  a.setInts("strides", {stride, stride});
  a.setInts("pads", {pad, pad, pad, pad});
  a.setInt("group", group);
  return a;
}

// A Conv with bias on an h x w input; output size from the usual formula.
KernelCase conv(const std::string& name, int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t k,
                int64_t stride, int64_t group, bool memoryBound) {
  const int64_t pad = k / 2;
  const int64_t oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
  KernelCase c;
  c.name = name;
  c.opType = "Conv";
  c.input = {1, cin, h, w};
  c.output = {1, cout, oh, ow};
  c.constants = {{cout, cin / group, k, k}, {cout}};
  c.attrs = convAttrs(k, stride, pad, group);
  c.flops = convFlops(1, cout, oh, ow, cin / group, k, k);
  c.memoryBound = memoryBound;
  return c;
}

KernelCase conv(const std::string& name, int64_t cin, int64_t cout, int64_t hw, int64_t k, int64_t stride,
                int64_t group, bool memoryBound) {
  return conv(name, cin, cout, hw, hw, k, stride, group, memoryBound);
}

// With a ReLU6 after it, as MobileNetV2's convs have: fused into the Conv, as the ONNX
// import does with the Clip that follows (tools/onnx/FuseConvActivation.hpp).
KernelCase relu6(KernelCase c) {
  c.attrs.setString("activation", "Clip");
  c.attrs.setFloats("activation_params", {0.f, 6.f});
  return c;
}

// ConvTranspose k2 s2 (the detector's upsampling): weight [Cin, Cout, 2, 2]; each input pixel
// times each weight once.
KernelCase convTranspose(const std::string& name, int64_t cin, int64_t cout, int64_t hw) {
  KernelCase c;
  c.name = name;
  c.opType = "ConvTranspose";
  c.input = {1, cin, hw, hw};
  c.output = {1, cout, 2 * hw, 2 * hw};
  c.constants = {{cin, cout, 2, 2}, {cout}};
  c.attrs = convAttrs(2, 2, 0);
  c.flops = convFlops(1, cout, hw, hw, cin, 2, 2);
  return c;
}

[[maybe_unused]] const bool registered =
    addKernel(conv("Conv3x3/64to64/56x56", 64, 64, 56, 3, 1, 1, false)) &&
    addKernel(conv("Conv1x1/256to256/28x28", 256, 256, 28, 1, 1, 1, false)) &&
    addKernel(conv("Conv1x1/16to32/320x320", 16, 32, 320, 1, 1, 1, true)) &&
    addKernel(conv("ConvDepthwise3x3/s1/96ch/80x80", 96, 96, 80, 3, 1, 96, true)) &&
    addKernel(conv("ConvDepthwise3x3/s2/96ch/80x80", 96, 96, 80, 3, 2, 96, true)) &&
    addKernel(conv("ConvDepthwise5x5/s1/240ch/6x160", 240, 240, 6, 160, 5, 1, 240, true)) &&
    addKernel(conv("ConvFirst3x3/s2/3to16/640x640", 3, 16, 640, 3, 2, 1, true)) &&
    addKernel(relu6(conv("ConvDepthwise3x3/s1/960ch/7x7/relu6", 960, 960, 7, 3, 1, 960, true))) &&
    addKernel(relu6(conv("ConvDepthwise3x3/s1/576ch/14x14/relu6", 576, 576, 14, 3, 1, 576, true))) &&
    addKernel(relu6(conv("ConvDepthwise3x3/s2/576ch/14x14/relu6", 576, 576, 14, 3, 2, 576, true))) &&
    addKernel(convTranspose("ConvTranspose2x2/s2/96to24/80x80", 96, 24, 80));

}  // namespace
}  // namespace bench
}  // namespace tessera
