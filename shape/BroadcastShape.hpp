// Shape inference for elementwise ops with numpy broadcasting: the broadcast shape of some
// inputs, with an error naming the inputs that disagree.
#pragma once
#include <string>
#include <vector>

#include "tessera/Registry.hpp"

namespace tessera {

// The name of input i as written in the graph, for messages.
inline std::string inputName(const ShapeContext& ctx, size_t i) {
  return i < ctx.node.inputs.size() ? "'" + ctx.node.inputs[i] + "'" : "#" + std::to_string(i);
}

// Broadcasts inputs [first, first + count) (all required) into *out.
inline Status broadcastInputShapes(const ShapeContext& ctx, size_t first, size_t count,
                                   Shape* out) {
  Shape shape;
  for (size_t i = first; i < first + count; ++i) {
    const Tensor* t = ctx.input(i);
    if (!t) return ctx.error("input " + std::to_string(i) + " is missing");
    if (i == first) {
      shape = t->shape();
      continue;
    }
    Shape next;
    if (!broadcastShapes(shape, t->shape(), &next)) {
      return ctx.error("input " + inputName(ctx, i) + " of shape " +
                       shapeToString(t->shape()) + " does not broadcast with shape " +
                       shapeToString(shape) + " of the inputs before it");
    }
    shape = std::move(next);
  }
  *out = std::move(shape);
  return Status::ok();
}

// Checks that inputs [first, first + count) share input `first`'s dtype.
inline Status requireSameDataType(const ShapeContext& ctx, size_t first, size_t count) {
  const DataType t = ctx.input(first)->dtype();
  for (size_t i = first + 1; i < first + count; ++i) {
    if (ctx.input(i)->dtype() != t) {
      return ctx.error("input " + inputName(ctx, i) + " is " +
                       dataTypeName(ctx.input(i)->dtype()) + " but input " +
                       inputName(ctx, first) + " is " + dataTypeName(t) +
                       "; the types must match");
    }
  }
  return Status::ok();
}

}  // namespace tessera
