// Unsqueeze: inserts extent-1 dimensions at the listed axes, which index the output (so
// they are normalised against the output rank, in any order).
#include "ops/Squeeze.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status unsqueezeShape(ShapeContext& ctx) {
  SqueezeParams p;
  TESSERA_RETURN_IF_ERROR(SqueezeParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  std::vector<int64_t> axes;
  bool present = false;
  TESSERA_RETURN_IF_ERROR(squeezeAxes(ctx.node, p, ctx.input(1), &axes, &present));
  if (!present) return ctx.error("needs 'axes'");
  const int64_t outRank = x->rank() + static_cast<int64_t>(axes.size());
  std::vector<bool> inserted(outRank, false);
  for (int64_t a : axes) {
    int64_t axis = 0;
    if (!normalizeAxis(a, outRank, &axis))
      return ctx.error("axis " + std::to_string(a) + " is out of range for an output of rank " +
                       std::to_string(outRank));
    if (inserted[axis]) return ctx.error("axis " + std::to_string(a) + " is repeated");
    inserted[axis] = true;
  }
  Shape out;
  size_t next = 0;
  for (int64_t d = 0; d < outRank; ++d) out.push_back(inserted[d] ? 1 : x->shape()[next++]);
  ctx.output(0) = Tensor(out, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Unsqueeze, unsqueezeShape);

}  // namespace tessera
