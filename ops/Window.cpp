#include "ops/Window.hpp"

#include <algorithm>

namespace tessera {

std::string joinInts(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s.empty() ? "(none)" : s;
}

Status WindowParams::parse(const Node& node, WindowParams* out) {
  WindowParams p;
  const Attributes& a = node.attrs;
  p.kernelShape = a.getInts("kernel_shape");
  p.strides = a.getInts("strides");
  p.dilations = a.getInts("dilations");
  p.pads = a.getInts("pads");
  p.ceilMode = a.getInt("ceil_mode", 0) != 0;
  const std::string autoPad = a.getString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET" || autoPad.empty()) p.autoPad = AutoPad::kNotSet;
  else if (autoPad == "SAME_UPPER") p.autoPad = AutoPad::kSameUpper;
  else if (autoPad == "SAME_LOWER") p.autoPad = AutoPad::kSameLower;
  else if (autoPad == "VALID") p.autoPad = AutoPad::kValid;
  else return Status::invalid(node.label() + ": unknown auto_pad '" + autoPad + "'");
  *out = p;
  return Status::ok();
}

int64_t WindowGeometry::inputCount() const {
  int64_t n = 1;
  for (int64_t v : input) n *= v;
  return n;
}
int64_t WindowGeometry::outputCount() const {
  int64_t n = 1;
  for (int64_t v : output) n *= v;
  return n;
}
int64_t WindowGeometry::kernelCount() const {
  int64_t n = 1;
  for (int64_t v : kernel) n *= v;
  return n;
}

WindowGeometry WindowGeometry::padTo3D() const {
  WindowGeometry g = *this;
  while (g.rank < 3) {
    g.input.insert(g.input.begin(), 1);
    g.output.insert(g.output.begin(), 1);
    g.kernel.insert(g.kernel.begin(), 1);
    g.stride.insert(g.stride.begin(), 1);
    g.dilation.insert(g.dilation.begin(), 1);
    g.padBegin.insert(g.padBegin.begin(), 0);
    g.padEnd.insert(g.padEnd.begin(), 0);
    ++g.rank;
  }
  return g;
}

Status resolveWindow(const WindowParams& p, const std::vector<int64_t>& input,
                     const std::vector<int64_t>& kernel, WindowGeometry* out) {
  const size_t r = input.size();
  auto checkLength = [&](const std::vector<int64_t>& v, size_t want, const char* name) {
    if (!v.empty() && v.size() != want)
      return Status::invalid(std::string(name) + " has " + std::to_string(v.size()) +
                             " values but the input has " + std::to_string(r) + " spatial dimensions");
    return Status::ok();
  };
  TESSERA_RETURN_IF_ERROR(checkLength(kernel, r, "kernel_shape"));
  if (kernel.size() != r) return Status::invalid("kernel_shape is missing");
  TESSERA_RETURN_IF_ERROR(checkLength(p.strides, r, "strides"));
  TESSERA_RETURN_IF_ERROR(checkLength(p.dilations, r, "dilations"));
  TESSERA_RETURN_IF_ERROR(checkLength(p.pads, 2 * r, "pads"));

  WindowGeometry g;
  g.rank = static_cast<int>(r);
  g.input = input;
  g.kernel = kernel;
  g.stride = p.strides.empty() ? std::vector<int64_t>(r, 1) : p.strides;
  g.dilation = p.dilations.empty() ? std::vector<int64_t>(r, 1) : p.dilations;
  g.padBegin.assign(r, 0);
  g.padEnd.assign(r, 0);
  g.output.assign(r, 0);
  for (size_t i = 0; i < r; ++i) {
    if (g.kernel[i] < 1) return Status::invalid("kernel_shape " + joinInts(kernel) + " must be positive");
    if (g.stride[i] < 1) return Status::invalid("strides " + joinInts(g.stride) + " must be positive");
    if (g.dilation[i] < 1) return Status::invalid("dilations " + joinInts(g.dilation) + " must be positive");
    if (!p.pads.empty() && p.autoPad == AutoPad::kNotSet) {
      g.padBegin[i] = p.pads[i];
      g.padEnd[i] = p.pads[i + r];
      if (g.padBegin[i] < 0 || g.padEnd[i] < 0)
        return Status::invalid("pads " + joinInts(p.pads) + " must not be negative");
    }
    // Every attribute and dim comes from the model: sizes are computed with overflow checks.
    const Status tooLarge = Status::invalid("the window (kernel " + joinInts(kernel) + ", strides " +
                                            joinInts(g.stride) + ", dilations " + joinInts(g.dilation) + ", pads " +
                                            joinInts(p.pads) + ") overflows in spatial dimension " + std::to_string(i));
    int64_t span = 0;  // dilated kernel extent
    if (!checkedMul(g.kernel[i] - 1, g.dilation[i], &span) || !checkedAdd(span, 1, &span)) return tooLarge;
    if (p.autoPad == AutoPad::kSameUpper || p.autoPad == AutoPad::kSameLower) {
      g.output[i] = input[i] / g.stride[i] + (input[i] % g.stride[i] != 0);
      int64_t reach = 0;
      if (!checkedMul(g.output[i] - 1, g.stride[i], &reach) || !checkedAdd(reach, span, &reach)) return tooLarge;
      const int64_t total = std::max<int64_t>(0, reach - input[i]);
      g.padBegin[i] = p.autoPad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      g.padEnd[i] = total - g.padBegin[i];
      continue;
    }
    int64_t padded = 0;
    if (!checkedAdd(input[i], g.padBegin[i], &padded) || !checkedAdd(padded, g.padEnd[i], &padded)) return tooLarge;
    if (padded < span)
      return Status::invalid("the window (kernel " + joinInts(kernel) + ", dilations " + joinInts(g.dilation) +
                             ") is larger than the padded input in spatial dimension " + std::to_string(i) +
                             " (" + std::to_string(padded) + ")");
    if (p.ceilMode && p.autoPad == AutoPad::kNotSet) {
      g.output[i] = (padded - span) / g.stride[i] + ((padded - span) % g.stride[i] != 0) + 1;
      // The last window must start inside the input or its leading pad.
      int64_t lastStart = 0;
      if (!checkedMul(g.output[i] - 1, g.stride[i], &lastStart) || lastStart >= input[i] + g.padBegin[i])
        --g.output[i];
    } else {
      g.output[i] = (padded - span) / g.stride[i] + 1;
    }
  }
  *out = g;
  return Status::ok();
}

}  // namespace tessera
