#include "tools/cli/TensorCompare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tessera {
namespace cli {
namespace {

// Element i of a plain host tensor as a double (f16/bf16 widened).
double elementAt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kF32: return t.data<float>()[i];
    case DataType::kF64: return t.data<double>()[i];
    case DataType::kF16: return halfToFloat(t.data<uint16_t>()[i]);
    case DataType::kBF16: return bfloat16ToFloat(t.data<uint16_t>()[i]);
    case DataType::kI8: return t.data<int8_t>()[i];
    case DataType::kI16: return t.data<int16_t>()[i];
    case DataType::kI32: return t.data<int32_t>()[i];
    case DataType::kI64: return static_cast<double>(t.data<int64_t>()[i]);
    case DataType::kU8: return t.data<uint8_t>()[i];
    case DataType::kU16: return t.data<uint16_t>()[i];
    case DataType::kU32: return t.data<uint32_t>()[i];
    case DataType::kU64: return static_cast<double>(t.data<uint64_t>()[i]);
    case DataType::kBool: return t.data<uint8_t>()[i] != 0;
    default: return 0.0;
  }
}

// Integers compared exactly (through their own type: doubles lose i64 precision).
bool integersEqual(const Tensor& a, const Tensor& e, int64_t i) {
  const size_t size = dataTypeSize(a.dtype());
  if (a.dtype() == DataType::kBool) return (a.data<uint8_t>()[i] != 0) == (e.data<uint8_t>()[i] != 0);
  const char* pa = static_cast<const char*>(a.data()) + i * size;
  const char* pe = static_cast<const char*>(e.data()) + i * size;
  return std::equal(pa, pa + size, pe);
}

std::string formatValue(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

Comparison compareTensors(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  Comparison c;
  if (actual.dtype() != expected.dtype()) {
    c.mismatch = std::string("dtype ") + dataTypeName(actual.dtype()) + " but expected " +
                 dataTypeName(expected.dtype());
    return c;
  }
  if (actual.shape() != expected.shape()) {
    c.mismatch = "shape " + shapeToString(actual.shape()) + " but expected " +
                 shapeToString(expected.shape());
    return c;
  }
  if (actual.elementCount() > 0 && (!actual.data() || !expected.data())) {
    c.mismatch = "no host data to compare";
    return c;
  }
  if (dataTypeSize(actual.dtype()) == 0) {
    c.mismatch = std::string("cannot compare dtype ") + dataTypeName(actual.dtype());
    return c;
  }
  const bool floating = isFloat(actual.dtype());
  int64_t bad = 0;
  int64_t worst = -1;
  double worstExcess = -1.0;  // how far past the tolerance the worst element is
  for (int64_t i = 0; i < actual.elementCount(); ++i) {
    const double a = elementAt(actual, i);
    const double e = elementAt(expected, i);
    bool good;
    double excess = 0.0;
    if (!floating) {
      good = integersEqual(actual, expected, i);
      excess = std::fabs(a - e);
      c.maxAbsErr = std::max(c.maxAbsErr, excess);
      if (e != 0) c.maxRelErr = std::max(c.maxRelErr, excess / std::fabs(e));
    } else if (std::isnan(e) || std::isnan(a)) {
      good = std::isnan(e) && std::isnan(a);
      excess = HUGE_VAL;
    } else if (std::isinf(e) || std::isinf(a)) {
      good = a == e;
      excess = HUGE_VAL;
    } else {
      const double abs = std::fabs(a - e);
      c.maxAbsErr = std::max(c.maxAbsErr, abs);
      if (e != 0) c.maxRelErr = std::max(c.maxRelErr, abs / std::fabs(e));
      excess = abs - (atol + rtol * std::fabs(e));
      good = excess <= 0;
    }
    if (good) continue;
    ++bad;
    if (excess > worstExcess) {
      worstExcess = excess;
      worst = i;
    }
  }
  if (bad == 0) {
    c.ok = true;
    return c;
  }
  std::ostringstream m;
  m << bad << " of " << actual.elementCount() << " values differ; worst at index " << worst
    << ": got " << formatValue(elementAt(actual, worst)) << ", expected "
    << formatValue(elementAt(expected, worst));
  c.mismatch = m.str();
  return c;
}

}  // namespace cli
}  // namespace tessera
