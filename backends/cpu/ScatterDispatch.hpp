// Runs a generic lambda with a scatter reduction and the C++ type it works on, for the CPU
// ScatterElements and ScatterND kernels:
//   dispatchScatter(r, dtype, [&](auto red, auto tag) {
//     using T = typename decltype(tag)::type; constexpr ScatterReduction R = decltype(red)::value; ... });
// reduction none only moves elements, so it takes any dtype by element size; the others
// compute on f32, f64, i32 and i64. Returns false for what it does not take.
#pragma once
#include <type_traits>

#include "backends/cpu/TypeDispatch.hpp"
#include "ops/Scatter.hpp"

namespace tessera {

template <ScatterReduction R>
using ReductionTag = std::integral_constant<ScatterReduction, R>;

template <typename Fn>
bool dispatchScatter(ScatterReduction r, DataType dt, Fn&& fn) {
  auto typed = [&](auto red) {
    switch (dt) {
      case DataType::kF32: fn(red, TypeTag<float>{}); return true;
      case DataType::kF64: fn(red, TypeTag<double>{}); return true;
      case DataType::kI32: fn(red, TypeTag<int32_t>{}); return true;
      case DataType::kI64: fn(red, TypeTag<int64_t>{}); return true;
      default: return false;
    }
  };
  switch (r) {
    case ScatterReduction::kNone:
      return dispatchBySize(dataTypeSize(dt), [&](auto tag) { fn(ReductionTag<ScatterReduction::kNone>{}, tag); });
    case ScatterReduction::kAdd: return typed(ReductionTag<ScatterReduction::kAdd>{});
    case ScatterReduction::kMul: return typed(ReductionTag<ScatterReduction::kMul>{});
    case ScatterReduction::kMax: return typed(ReductionTag<ScatterReduction::kMax>{});
    case ScatterReduction::kMin: return typed(ReductionTag<ScatterReduction::kMin>{});
  }
  return false;
}

}  // namespace tessera
