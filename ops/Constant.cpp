#include "ops/Constant.hpp"

#include <cstring>

namespace tessera {

Status ConstantParams::parse(const Node& node, ConstantParams* out) {
  const Attributes& a = node.attrs;
  for (const char* name : {"sparse_value", "value_string", "value_strings"}) {
    if (a.has(name)) {
      return Status::unsupported(node.label() + ": the '" + name + "' attribute is not supported");
    }
  }
  int given = 0;
  ConstantParams p;
  if (const Attribute* v = a.find("value")) {
    ++given;
    if (v->kind != Attribute::Kind::kTensor || !v->t.data()) {
      return Status::invalid(node.label() + ": attribute 'value' is not a tensor with data");
    }
    if (v->t.dtype() == DataType::kString) {
      return Status::unsupported(node.label() + ": string tensors are not supported");
    }
    p.value = v->t;
  }
  if (const Attribute* v = a.find("value_float")) {
    ++given;
    p.value = Tensor::hostAllocate({}, DataType::kF32);
    *p.value.data<float>() = v->f;
  }
  if (const Attribute* v = a.find("value_int")) {
    ++given;
    p.value = Tensor::hostAllocate({}, DataType::kI64);
    *p.value.data<int64_t>() = v->i;
  }
  if (const Attribute* v = a.find("value_floats")) {
    ++given;
    const int64_t n = static_cast<int64_t>(v->floats.size());
    p.value = Tensor::hostAllocate({n}, DataType::kF32);
    if (n) std::memcpy(p.value.data(), v->floats.data(), n * sizeof(float));
  }
  if (const Attribute* v = a.find("value_ints")) {
    ++given;
    const int64_t n = static_cast<int64_t>(v->ints.size());
    p.value = Tensor::hostAllocate({n}, DataType::kI64);
    if (n) std::memcpy(p.value.data(), v->ints.data(), n * sizeof(int64_t));
  }
  if (given != 1) {
    return Status::invalid(node.label() + ": needs exactly one of value, value_float, "
                           "value_floats, value_int, value_ints (got " +
                           std::to_string(given) + ")");
  }
  p.value.setLayout(Layout::kNCHW);
  *out = std::move(p);
  return Status::ok();
}

}  // namespace tessera
