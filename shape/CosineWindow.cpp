// HannWindow, HammingWindow, BlackmanWindow: [size] in output_datatype (ops/CosineWindow.hpp). The
// length is the value of the `size` input, so it must be known when the graph is planned.
#include <vector>

#include "ops/ConstantIntInput.hpp"
#include "ops/CosineWindow.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status windowShape(ShapeContext& ctx) {
  CosineWindowParams p;
  TESSERA_RETURN_IF_ERROR(CosineWindowParams::parse(ctx.node, &p));
  std::vector<int64_t> size;
  TESSERA_RETURN_IF_ERROR(constantIntInput(ctx.node, ctx.input(0), "size", &size));
  if (size.size() != 1) return ctx.error("'size' " + ctx.input(0)->describe() + " must be a scalar");
  if (size[0] < 0) return ctx.error("size " + std::to_string(size[0]) + " is negative");
  ctx.output(0) = Tensor(Shape{size[0]}, p.output);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(HannWindow, windowShape);
TESSERA_REGISTER_SHAPE(HammingWindow, windowShape);
TESSERA_REGISTER_SHAPE(BlackmanWindow, windowShape);

}  // namespace tessera
