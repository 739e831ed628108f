// Reads the values of a small integer input that must be known at resize time (Reshape's
// shape, Slice's starts, Squeeze's axes...). Such inputs are constant when they are
// initializers, Constant outputs, or folded shape sub-graphs; their data() is then set.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"
#include "tessera/ValueNeeds.hpp"

namespace tessera {

// Copies the values of an i32/i64 tensor with host data. False when it has none or is not
// an integer tensor.
inline bool readIntValues(const Tensor& t, std::vector<int64_t>* out) {
  if (!t.data() && t.elementCount() != 0) return false;
  const int64_t n = t.elementCount();
  out->assign(static_cast<size_t>(n), 0);
  if (t.dtype() == DataType::kI64) {
    for (int64_t i = 0; i < n; ++i) (*out)[i] = t.data<int64_t>()[i];
  } else if (t.dtype() == DataType::kI32) {
    for (int64_t i = 0; i < n; ++i) (*out)[i] = t.data<int32_t>()[i];
  } else {
    return false;
  }
  return true;
}

// The same, with an error naming the node and the role of the input ("shape", "axes").
inline Status constantIntInput(const Node& node, const Tensor* t, const std::string& role,
                               std::vector<int64_t>* out) {
  if (!t) return Status::invalid(node.label() + ": the '" + role + "' input is missing");
  if (t->dtype() != DataType::kI64 && t->dtype() != DataType::kI32)
    return Status::invalid(node.label() + ": the '" + role + "' input " + t->describe() +
                           " must be int64 (or int32)");
  if (!readIntValues(*t, out)) {
    noteValueNeeded(t);
    return Status::unsupported(node.label() + ": needs a constant '" + role + "' input, but " +
                               t->describe() + " is only known at run time");
  }
  return Status::ok();
}

// The same for a scalar (or one-element) input.
inline Status constantIntScalar(const Node& node, const Tensor* t, const std::string& role, int64_t* out) {
  std::vector<int64_t> v;
  TESSERA_RETURN_IF_ERROR(constantIntInput(node, t, role, &v));
  if (v.size() != 1)
    return Status::invalid(node.label() + ": '" + role + "' " + t->describe() + " must be a scalar");
  *out = v[0];
  return Status::ok();
}

}  // namespace tessera
