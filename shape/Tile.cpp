// Tile: output extent d = input extent d * repeats[d]; repeats is a constant input.
#include "ops/ConstantIntInput.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status tileShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  std::vector<int64_t> repeats;
  TESSERA_RETURN_IF_ERROR(constantIntInput(ctx.node, ctx.input(1), "repeats", &repeats));
  if (static_cast<int>(repeats.size()) != x->rank())
    return ctx.error("'repeats' has " + std::to_string(repeats.size()) +
                     " values but input " + x->describe() + " has rank " +
                     std::to_string(x->rank()));
  Shape out = x->shape();
  for (size_t d = 0; d < out.size(); ++d) {
    if (repeats[d] < 0) return ctx.error("'repeats' has a negative value");
    if (!checkedMul(out[d], repeats[d], &out[d]))
      return ctx.error("'repeats' " + std::to_string(repeats[d]) + " makes dimension " + std::to_string(d) +
                       " of input " + x->describe() + " too large");
  }
  ctx.output(0) = Tensor(out, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Tile, tileShape);

}  // namespace tessera
