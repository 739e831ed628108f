#include "tools/cli/GraphInputs.hpp"

#include <cstdlib>
#include <random>

namespace tessera {
namespace cli {

std::string declaredShape(const ValueInfo& v) {
  if (!v.hasShape) return "unknown shape";
  if (v.dims.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < v.dims.size(); ++i) {
    s += (i ? "x" : "") + (v.dims[i] < 0 ? std::string("?") : std::to_string(v.dims[i]));
  }
  return s;
}

Status checkInputMatches(const ValueInfo& v, const Tensor& t, const std::string& source) {
  const std::string what = "input '" + v.name + "'";
  if (v.dtype != DataType::kUnknown && t.dtype() != v.dtype) {
    return Status::invalid(what + ": the model expects " + dataTypeName(v.dtype) + " but " +
                           source + " holds " + dataTypeName(t.dtype()));
  }
  if (!v.hasShape) return Status::ok();
  bool fits = static_cast<size_t>(t.rank()) == v.dims.size();
  for (size_t i = 0; fits && i < v.dims.size(); ++i) {
    fits = v.dims[i] < 0 || v.dims[i] == t.shape()[i];
  }
  if (!fits) {
    return Status::invalid(what + ": the model expects shape " + declaredShape(v) + " (rank " +
                           std::to_string(v.dims.size()) + ") but " + source + " has shape " +
                           shapeToString(t.shape()) + " (rank " + std::to_string(t.rank()) +
                           ")");
  }
  return Status::ok();
}

bool parseShape(const std::string& text, Shape* out) {
  out->clear();
  if (text == "scalar") return true;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t x = text.find_first_of("x,", pos);
    const std::string part = text.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    if (part.empty() || part.size() > 12 || part.find_first_not_of("0123456789") != std::string::npos) {
      return false;
    }
    out->push_back(std::strtoll(part.c_str(), nullptr, 10));
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  return !out->empty();
}

Tensor randomInput(DataType dtype, const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::hostAllocate(shape, dtype);  // zeroed: integers and bools stay 0
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  const int64_t n = t.elementCount();
  switch (dtype) {
    case DataType::kF32:
      for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = dist(rng);
      break;
    case DataType::kF64:
      for (int64_t i = 0; i < n; ++i) t.data<double>()[i] = dist(rng);
      break;
    case DataType::kF16:
      for (int64_t i = 0; i < n; ++i) t.data<uint16_t>()[i] = floatToHalf(dist(rng));
      break;
    case DataType::kBF16:
      for (int64_t i = 0; i < n; ++i) t.data<uint16_t>()[i] = floatToBFloat16(dist(rng));
      break;
    default:
      break;
  }
  return t;
}

}  // namespace cli
}  // namespace tessera
