// Resize and Upsample: the output shape comes from 'sizes' or floor(input * scales), whose
// values must be known when planning (constants, or folded from constants); the optional sum
// Z (ops/Resize.hpp) has the output's shape.
#include "ops/Resize.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status resizeShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'X' is required");
  ResizeParams p;
  TESSERA_RETURN_IF_ERROR(ResizeParams::parse(ctx.node, &p));
  auto in = [&](int i) { return i < 0 ? nullptr : ctx.input(static_cast<size_t>(i)); };
  ResizeGeometry g;
  Status st = resolveResize(p, x->shape(), in(p.roiInput), in(p.scalesInput), in(p.sizesInput), &g);
  if (!st.isOk()) return ctx.error(st.message());
  if (const Tensor* z = ctx.input(kResizeSumInput)) {
    if (ctx.node.opType != "Resize" || ctx.node.opset < 11)
      return ctx.error("input 5, the sum Z of an import-time fusion, is for Resize of opset 11 or later");
    if (z->dtype() != x->dtype() || z->shape() != g.output)
      return ctx.error(std::string("the sum Z (input 5, from an import-time fusion) must be ") +
                       dataTypeName(x->dtype()) + " " + shapeToString(g.output) + ", the output's shape; it is " +
                       z->describe());
  }
  ctx.output(0) = Tensor(g.output, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Resize, resizeShape);
TESSERA_REGISTER_SHAPE(Upsample, resizeShape);

}  // namespace tessera
