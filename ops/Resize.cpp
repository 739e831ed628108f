#include "ops/Resize.hpp"
#include "tessera/ValueNeeds.hpp"

#include <algorithm>
#include <cmath>

namespace tessera {

Status ResizeParams::parse(const Node& node, ResizeParams* out) {
  ResizeParams p;
  const Attributes& a = node.attrs;
  const std::string mode = a.getString("mode", "nearest");
  if (mode == "nearest") p.mode = ResizeMode::kNearest;
  else if (mode == "linear" || mode == "bilinear") p.mode = ResizeMode::kLinear;
  else if (mode == "cubic" && node.opType == "Resize" && node.opset >= 11) p.mode = ResizeMode::kCubic;
  else return Status::invalid(node.label() + ": unknown mode '" + mode + "'");

  const bool legacy = node.opType == "Upsample" || node.opset < 11;
  if (legacy) {
    // Upsample and Resize-10: asymmetric coordinates, nearest rounds down when upsampling.
    p.coordinates = ResizeCoordinates::kAsymmetric;
    p.nearest = NearestRounding::kSimple;
    if (node.opType == "Upsample" && node.opset < 9) {
      p.scalesAttribute = a.getFloats("scales");
      if (p.scalesAttribute.empty()) return Status::invalid(node.label() + ": attribute scales is required");
    } else {
      p.scalesInput = 1;
    }
    *out = p;
    return Status::ok();
  }

  p.roiInput = 1;
  p.scalesInput = 2;
  p.sizesInput = 3;
  const std::string coords = a.getString("coordinate_transformation_mode", "half_pixel");
  if (coords == "half_pixel") p.coordinates = ResizeCoordinates::kHalfPixel;
  else if (coords == "pytorch_half_pixel") p.coordinates = ResizeCoordinates::kPytorchHalfPixel;
  else if (coords == "align_corners") p.coordinates = ResizeCoordinates::kAlignCorners;
  else if (coords == "asymmetric") p.coordinates = ResizeCoordinates::kAsymmetric;
  else if (coords == "tf_half_pixel_for_nn") p.coordinates = ResizeCoordinates::kTfHalfPixelForNN;
  else if (coords == "tf_crop_and_resize") p.coordinates = ResizeCoordinates::kTfCropAndResize;
  else return Status::unsupported(node.label() + ": coordinate_transformation_mode '" + coords + "' is not supported");
  const std::string nearest = a.getString("nearest_mode", "round_prefer_floor");
  if (nearest == "round_prefer_floor") p.nearest = NearestRounding::kRoundPreferFloor;
  else if (nearest == "round_prefer_ceil") p.nearest = NearestRounding::kRoundPreferCeil;
  else if (nearest == "floor") p.nearest = NearestRounding::kFloor;
  else if (nearest == "ceil") p.nearest = NearestRounding::kCeil;
  else return Status::invalid(node.label() + ": unknown nearest_mode '" + nearest + "'");
  p.cubicA = a.getFloat("cubic_coeff_a", -0.75f);
  p.excludeOutside = a.getInt("exclude_outside", 0) != 0;
  p.extrapolationValue = a.getFloat("extrapolation_value", 0.f);
  if (a.getInt("antialias", 0) != 0 || a.has("axes") || a.getString("keep_aspect_ratio_policy", "stretch") != "stretch")
    return Status::unsupported(node.label() + ": the opset-18 attributes antialias, axes and keep_aspect_ratio_policy are not supported");
  *out = p;
  return Status::ok();
}

namespace {

bool present(const Tensor* t) { return t && t->elementCount() > 0; }

Status readValues(const Tensor* t, const char* name, size_t want, std::vector<double>* out) {
  if (!t->data()) {
    noteValueNeeded(t);
    return Status::invalid(std::string("the values of input '") + name +
                           "' are not known when planning: it must be a constant (or computed from constants)");
  }
  if (static_cast<size_t>(t->elementCount()) != want)
    return Status::invalid(std::string("input '") + name + "' has " + std::to_string(t->elementCount()) +
                           " values but X has rank " + std::to_string(want / (std::string(name) == "roi" ? 2 : 1)));
  out->resize(want);
  for (size_t i = 0; i < want; ++i) {
    switch (t->dtype()) {
      case DataType::kF32: (*out)[i] = t->data<float>()[i]; break;
      case DataType::kF64: (*out)[i] = t->data<double>()[i]; break;
      case DataType::kF16: (*out)[i] = halfToFloat(t->data<uint16_t>()[i]); break;
      case DataType::kI64: (*out)[i] = static_cast<double>(t->data<int64_t>()[i]); break;
      case DataType::kI32: (*out)[i] = t->data<int32_t>()[i]; break;
      default: return Status::invalid(std::string("input '") + name + "' has unsupported type " + dataTypeName(t->dtype()));
    }
  }
  return Status::ok();
}

}  // namespace

Status resolveResize(const ResizeParams& p, const Shape& x, const Tensor* roi, const Tensor* scales,
                     const Tensor* sizes, ResizeGeometry* out) {
  const size_t r = x.size();
  ResizeGeometry g;
  g.input = x;
  g.output.assign(r, 0);
  g.scales.assign(r, 1.0);
  g.roiStart.assign(r, 0.0);
  g.roiEnd.assign(r, 1.0);
  if (p.coordinates == ResizeCoordinates::kTfCropAndResize) {
    if (!present(roi)) return Status::invalid("tf_crop_and_resize needs the input 'roi'");
    std::vector<double> v;
    TESSERA_RETURN_IF_ERROR(readValues(roi, "roi", 2 * r, &v));
    for (size_t d = 0; d < r; ++d) {
      g.roiStart[d] = v[d];
      g.roiEnd[d] = v[d + r];
    }
  }
  const bool haveSizes = present(sizes), haveScales = present(scales) || !p.scalesAttribute.empty();
  if (haveSizes && present(scales)) return Status::invalid("only one of 'scales' and 'sizes' may be given");
  if (haveSizes) {
    std::vector<double> v;
    TESSERA_RETURN_IF_ERROR(readValues(sizes, "sizes", r, &v));
    for (size_t d = 0; d < r; ++d) {
      if (!(v[d] >= 0 && v[d] < 9.2e18)) return Status::invalid("'sizes' has a negative or out-of-range value");
      g.output[d] = static_cast<int64_t>(v[d]);
      g.scales[d] = x[d] > 0 ? static_cast<double>(g.output[d]) / static_cast<double>(x[d]) : 1.0;
    }
  } else if (haveScales) {
    std::vector<double> v;
    if (!p.scalesAttribute.empty()) {
      if (p.scalesAttribute.size() != r)
        return Status::invalid("attribute scales has " + std::to_string(p.scalesAttribute.size()) +
                               " values but X has rank " + std::to_string(r));
      v.assign(p.scalesAttribute.begin(), p.scalesAttribute.end());
    } else {
      TESSERA_RETURN_IF_ERROR(readValues(scales, "scales", r, &v));
    }
    for (size_t d = 0; d < r; ++d) {
      if (!(v[d] > 0)) return Status::invalid("'scales' must be positive");
      g.scales[d] = v[d];
      const double extent = static_cast<double>(x[d]) * (g.roiEnd[d] - g.roiStart[d]);
      const double extentOut = std::floor(extent * v[d]);
      // A float past int64's range does not convert (undefined behaviour): refuse it here.
      if (!(extentOut >= 0 && extentOut < 9.2e18))
        return Status::invalid("'scales' " + std::to_string(v[d]) + " gives dimension " + std::to_string(d) + " of " +
                               shapeToString(x) + " an extent out of range");
      g.output[d] = static_cast<int64_t>(extentOut);
    }
  } else {
    return Status::invalid("one of 'scales' and 'sizes' is required");
  }
  *out = g;
  return Status::ok();
}

namespace {

// Source coordinate of output index x along an axis (ONNX reference formulas; the output
// length they use is scale * input length, which differs from the integer size when scales
// are given).
double sourceCoordinate(const ResizeParams& p, double x, int64_t in, double scale, double roiStart, double roiEnd) {
  const double outLength = scale * static_cast<double>(in);
  switch (p.coordinates) {
    case ResizeCoordinates::kHalfPixel: return (x + 0.5) / scale - 0.5;
    case ResizeCoordinates::kPytorchHalfPixel: return outLength == 1.0 ? -0.5 : (x + 0.5) / scale - 0.5;
    case ResizeCoordinates::kAlignCorners:
      return outLength == 1.0 ? 0.0 : x * static_cast<double>(in - 1) / (outLength - 1.0);
    case ResizeCoordinates::kAsymmetric: return x / scale;
    case ResizeCoordinates::kTfHalfPixelForNN: return (x + 0.5) / scale;
    case ResizeCoordinates::kTfCropAndResize: {
      const double span = (roiEnd - roiStart) * static_cast<double>(in - 1);
      const double base = roiStart * static_cast<double>(in - 1);
      return outLength == 1.0 ? base + span / 2.0 : base + x * span / (outLength - 1.0);
    }
  }
  return x / scale;
}

int64_t roundNearest(const ResizeParams& p, double x, double scale) {
  const double fl = std::floor(x);
  const bool half = x - fl == 0.5;
  switch (p.nearest) {
    case NearestRounding::kRoundPreferFloor: return static_cast<int64_t>(half ? fl : std::floor(x + 0.5));
    case NearestRounding::kRoundPreferCeil: return static_cast<int64_t>(half ? fl + 1 : std::floor(x + 0.5));
    case NearestRounding::kFloor: return static_cast<int64_t>(fl);
    case NearestRounding::kCeil: return static_cast<int64_t>(std::ceil(x));
    case NearestRounding::kSimple: return static_cast<int64_t>(scale < 1.0 ? std::ceil(x) : fl);
  }
  return static_cast<int64_t>(fl);
}

double cubicWeight(double t, double A) {
  t = std::fabs(t);
  if (t <= 1) return ((A + 2) * t - (A + 3)) * t * t + 1;
  if (t < 2) return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
  return 0;
}

}  // namespace

std::vector<ResizeTaps> resizeAxisTaps(const ResizeParams& p, const ResizeGeometry& g, int axis) {
  const int64_t in = g.input[axis], outCount = g.output[axis];
  const double scale = g.scales[axis];
  std::vector<ResizeTaps> taps(outCount);
  for (int64_t o = 0; o < outCount; ++o) {
    ResizeTaps& t = taps[o];
    const double x = sourceCoordinate(p, static_cast<double>(o), in, scale, g.roiStart[axis], g.roiEnd[axis]);
    if (p.coordinates == ResizeCoordinates::kTfCropAndResize && (x < 0 || x > static_cast<double>(in - 1))) {
      t.outside = true;
      continue;
    }
    double weight[4];
    int64_t index[4];
    int n = 0;
    if (p.mode == ResizeMode::kNearest) {
      index[0] = roundNearest(p, x, scale);
      weight[0] = 1;
      n = 1;
    } else {
      const double base = std::floor(x), r = x - base;
      const int64_t b = static_cast<int64_t>(base);
      if (p.mode == ResizeMode::kLinear) {
        index[0] = b; weight[0] = 1 - r;
        index[1] = b + 1; weight[1] = r;
        n = 2;
      } else {
        const double A = p.cubicA;
        index[0] = b - 1; weight[0] = cubicWeight(r + 1, A);
        index[1] = b; weight[1] = cubicWeight(r, A);
        index[2] = b + 1; weight[2] = cubicWeight(1 - r, A);
        index[3] = b + 2; weight[3] = cubicWeight(2 - r, A);
        n = 4;
      }
      if (p.excludeOutside) {
        double sum = 0;
        for (int i = 0; i < n; ++i) {
          if (index[i] < 0 || index[i] >= in) weight[i] = 0;
          sum += weight[i];
        }
        if (sum != 0)
          for (int i = 0; i < n; ++i) weight[i] /= sum;
      }
    }
    // Indices past the edges read the edge value; zero-weight taps are dropped.
    for (int i = 0; i < n; ++i) {
      if (weight[i] == 0 && !(t.count == 0 && i == n - 1)) continue;
      t.index[t.count] = std::min<int64_t>(std::max<int64_t>(index[i], 0), in - 1);
      t.weight[t.count] = static_cast<float>(weight[i]);
      ++t.count;
    }
  }
  return taps;
}

}  // namespace tessera
