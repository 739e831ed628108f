#include "ops/ConstantOfShape.hpp"

#include <cstring>

#include "tessera/Tensor.hpp"

namespace tessera {

Status ConstantOfShapeParams::parse(const Node& node, ConstantOfShapeParams* out) {
  ConstantOfShapeParams p;
  if (const Attribute* v = node.attrs.find("value")) {
    if (v->kind != Attribute::Kind::kTensor || !v->t.data()) {
      return Status::invalid(node.label() + ": attribute 'value' is not a tensor with data");
    }
    const Tensor& t = v->t;
    if (t.elementCount() != 1) {
      return Status::invalid(node.label() + ": attribute 'value' has " +
                             std::to_string(t.elementCount()) +
                             " elements; it must have exactly one");
    }
    const size_t size = dataTypeSize(t.dtype());
    if (t.dtype() == DataType::kString || size == 0 || size > sizeof(p.valueBytes)) {
      return Status::unsupported(node.label() + ": value of type " + dataTypeName(t.dtype()) +
                                 " is not supported");
    }
    p.dtype = t.dtype();
    std::memcpy(p.valueBytes, t.data(), size);
  }
  *out = p;
  return Status::ok();
}

}  // namespace tessera
