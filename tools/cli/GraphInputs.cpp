#include "tools/cli/GraphInputs.hpp"

#include <cstdlib>
#include <random>
#include <set>

#include "tools/cli/Npy.hpp"

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

Status gatherInputs(const Graph& graph, const std::map<std::string, std::string>& files,
                    const std::map<std::string, Shape>& shapes, bool allowRandom,
                    std::map<std::string, Tensor>* out) {
  out->clear();
  std::set<std::string> declared;
  std::string names;
  uint32_t seed = 1;
  for (const ValueInfo& v : graph.inputs) {
    declared.insert(v.name);
    names += (names.empty() ? "" : ", ") + v.name;
    Tensor t;
    auto file = files.find(v.name);
    if (file != files.end()) {
      TESSERA_RETURN_IF_ERROR(readNpy(file->second, &t));
      TESSERA_RETURN_IF_ERROR(checkInputMatches(v, t, file->second));
    } else {
      const std::string what = "input '" + v.name + "' (" + dataTypeName(v.dtype) + " " + declaredShape(v) + ")";
      if (!allowRandom) return Status::invalid("missing " + what + ": give it with --input " + v.name + "=FILE.npy");
      Shape shape;
      auto given = shapes.find(v.name);
      if (given != shapes.end()) {
        shape = given->second;
      } else {
        bool fixed = v.hasShape;
        for (int64_t d : v.dims) fixed = fixed && d >= 0;
        if (!fixed) return Status::invalid(what + " has no fixed shape: give --shape " + v.name + "=DIMS or --input " +
                                           v.name + "=FILE.npy");
        shape = Shape(v.dims.begin(), v.dims.end());
      }
      t = randomInput(v.dtype, shape, seed);
      TESSERA_RETURN_IF_ERROR(checkInputMatches(v, t, "--shape"));
    }
    ++seed;
    t.setName(v.name);
    (*out)[v.name] = t;
  }
  for (const auto& given : files)
    if (!declared.count(given.first))
      return Status::invalid("the model has no input '" + given.first + "' (its inputs: " +
                             (names.empty() ? std::string("none") : names) + ")");
  for (const auto& given : shapes)
    if (!declared.count(given.first))
      return Status::invalid("the model has no input '" + given.first + "' (its inputs: " +
                             (names.empty() ? std::string("none") : names) + ")");
  return Status::ok();
}

}  // namespace cli
}  // namespace tessera
