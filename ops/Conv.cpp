#include "ops/Conv.hpp"

namespace tessera {

Status ConvParams::parse(const Node& node, ConvParams* out) {
  ConvParams p;
  TESSERA_RETURN_IF_ERROR(WindowParams::parse(node, &p.window));
  p.group = node.attrs.getInt("group", 1);
  if (p.group < 1) return Status::invalid(node.label() + ": group must be at least 1, got " + std::to_string(p.group));
  p.outputPadding = node.attrs.getInts("output_padding");
  p.outputShape = node.attrs.getInts("output_shape");
  TESSERA_RETURN_IF_ERROR(FusedActivation::parse(node, &p.activation));
  *out = p;
  return Status::ok();
}

Shape ConvShape::outputShape() const {
  Shape s = {batch, outChannels};
  s.insert(s.end(), window.output.begin(), window.output.end());
  return s;
}

namespace {

// Checks ranks and the kernel shape attribute against W; returns the kernel extents.
Status commonChecks(const ConvParams& p, const Shape& x, const Shape& w, std::vector<int64_t>* kernel) {
  if (x.size() < 3)
    return Status::invalid("input 'X' must have rank >= 3 ([N, C, spatial...]) but has shape " + shapeToString(x));
  if (w.size() != x.size())
    return Status::invalid("weight 'W' has shape " + shapeToString(w) + " but must have the rank of X " +
                           shapeToString(x));
  kernel->assign(w.begin() + 2, w.end());
  if (!p.window.kernelShape.empty() && p.window.kernelShape != *kernel)
    return Status::invalid("kernel_shape " + joinInts(p.window.kernelShape) + " does not match the weight shape " +
                           shapeToString(w));
  return Status::ok();
}

}  // namespace

Status resolveConv(const ConvParams& p, const Shape& x, const Shape& w, ConvShape* out) {
  std::vector<int64_t> kernel;
  TESSERA_RETURN_IF_ERROR(commonChecks(p, x, w, &kernel));
  ConvShape c;
  c.batch = x[0];
  c.inChannels = x[1];
  c.outChannels = w[0];
  c.group = p.group;
  if (c.inChannels % c.group != 0 || c.outChannels % c.group != 0)
    return Status::invalid("group " + std::to_string(c.group) + " does not divide the input channels (" +
                           std::to_string(c.inChannels) + ") and output channels (" +
                           std::to_string(c.outChannels) + ")");
  if (w[1] != c.inChannels / c.group)
    return Status::invalid("input 'X' has " + std::to_string(c.inChannels) + " channels but the weight expects " +
                           std::to_string(w[1]) + " per group (weight shape " + shapeToString(w) + ", group " +
                           std::to_string(c.group) + ")");
  TESSERA_RETURN_IF_ERROR(resolveWindow(p.window, std::vector<int64_t>(x.begin() + 2, x.end()), kernel, &c.window));
  *out = c;
  return Status::ok();
}

Status resolveConvTranspose(const ConvParams& p, const Shape& x, const Shape& w, ConvShape* out) {
  std::vector<int64_t> kernel;
  TESSERA_RETURN_IF_ERROR(commonChecks(p, x, w, &kernel));
  ConvShape c;
  c.batch = x[0];
  c.inChannels = x[1];
  c.group = p.group;
  if (!checkedMul(w[1], p.group, &c.outChannels))
    return Status::invalid("group " + std::to_string(p.group) + " and weight shape " + shapeToString(w) +
                           " give too many output channels");
  if (w[0] != c.inChannels)
    return Status::invalid("input 'X' has " + std::to_string(c.inChannels) + " channels but the weight has " +
                           std::to_string(w[0]) + " (weight shape " + shapeToString(w) + ")");
  if (c.inChannels % c.group != 0)
    return Status::invalid("group " + std::to_string(c.group) + " does not divide the input channels (" +
                           std::to_string(c.inChannels) + ")");
  const size_t r = x.size() - 2;
  // Resolve strides/dilations/kernel via the shared window code with pads ignored.
  WindowParams wp = p.window;
  wp.pads.clear();
  wp.autoPad = AutoPad::kNotSet;
  wp.ceilMode = false;
  WindowGeometry g;
  // A large stand-in input extent: only the checked attribute vectors are kept.
  TESSERA_RETURN_IF_ERROR(resolveWindow(wp, std::vector<int64_t>(r, int64_t(1) << 40), kernel, &g));
  g.input.assign(x.begin() + 2, x.end());
  if (!p.window.pads.empty() && p.window.pads.size() != 2 * r)
    return Status::invalid("pads has " + std::to_string(p.window.pads.size()) + " values but the input has " +
                           std::to_string(r) + " spatial dimensions");
  if (!p.outputPadding.empty() && p.outputPadding.size() != r)
    return Status::invalid("output_padding has " + std::to_string(p.outputPadding.size()) +
                           " values but the input has " + std::to_string(r) + " spatial dimensions");
  std::vector<int64_t> wanted = p.outputShape;
  if (wanted.size() == r + 2) wanted.erase(wanted.begin(), wanted.begin() + 2);
  if (!wanted.empty() && wanted.size() != r)
    return Status::invalid("output_shape " + joinInts(p.outputShape) + " does not match the " + std::to_string(r) +
                           " spatial dimensions of the input");
  const bool same = p.window.autoPad == AutoPad::kSameUpper || p.window.autoPad == AutoPad::kSameLower;
  for (size_t i = 0; i < r; ++i) {
    const int64_t outPad = p.outputPadding.empty() ? 0 : p.outputPadding[i];
    // Attributes and dims come from the model: sizes are computed with overflow checks.
    const Status tooLarge = Status::invalid("strides, dilations, output_padding or output_shape overflow the output in "
                                            "spatial dimension " + std::to_string(i));
    int64_t span = 0, full = 0;  // the dilated kernel's extent; the output with no padding
    if (!checkedMul(g.kernel[i] - 1, g.dilation[i], &span) || !checkedAdd(span, 1, &span) ||
        !checkedMul(g.stride[i], g.input[i] - 1, &full) || !checkedAdd(full, outPad, &full) ||
        !checkedAdd(full, span, &full))
      return tooLarge;
    if (!wanted.empty() || same) {
      if (!wanted.empty()) g.output[i] = wanted[i];
      else if (!checkedMul(g.input[i], g.stride[i], &g.output[i])) return tooLarge;
      // total < 0 (output_shape past the natural size) pads the end with zeros: halve
      // rounding down, as the ONNX reference does.
      int64_t total = 0;
      if (__builtin_sub_overflow(full, g.output[i], &total)) return tooLarge;
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      if (p.window.autoPad == AutoPad::kSameUpper) {
        g.padBegin[i] = half;
        g.padEnd[i] = total - half;
      } else {
        g.padBegin[i] = total - half;
        g.padEnd[i] = half;
      }
    } else {
      g.padBegin[i] = p.window.pads.empty() ? 0 : p.window.pads[i];
      g.padEnd[i] = p.window.pads.empty() ? 0 : p.window.pads[i + r];
      if (__builtin_sub_overflow(full, g.padBegin[i], &g.output[i]) ||
          __builtin_sub_overflow(g.output[i], g.padEnd[i], &g.output[i]))
        return tooLarge;
    }
    if (g.output[i] < 1)
      return Status::invalid("the output would have extent " + std::to_string(g.output[i]) + " in spatial dimension " +
                             std::to_string(i));
  }
  c.window = g;
  *out = c;
  return Status::ok();
}

}  // namespace tessera
