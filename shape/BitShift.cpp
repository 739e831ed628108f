// BitShift: the broadcast shape of X and Y, in their (shared) unsigned integer dtype.
#include "ops/BitShift.hpp"
#include "shape/BroadcastShape.hpp"

namespace tessera {
namespace {

bool isUnsigned(DataType t) {
  return t == DataType::kU8 || t == DataType::kU16 || t == DataType::kU32 || t == DataType::kU64;
}

Status bitShiftShape(ShapeContext& ctx) {
  BitShiftParams p;
  TESSERA_RETURN_IF_ERROR(BitShiftParams::parse(ctx.node, &p));
  if (ctx.inputCount() != 2) return ctx.error("needs exactly 2 inputs, got " + std::to_string(ctx.inputCount()));
  Shape shape;
  TESSERA_RETURN_IF_ERROR(broadcastInputShapes(ctx, 0, 2, &shape));
  TESSERA_RETURN_IF_ERROR(requireSameDataType(ctx, 0, 2));
  const DataType t = ctx.input(0)->dtype();
  if (!isUnsigned(t))
    return ctx.error("input " + ctx.input(0)->describe() + " must be an unsigned integer tensor (u8, u16, u32, u64)");
  ctx.output(0) = Tensor(shape, t);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(BitShift, bitShiftShape);

}  // namespace tessera
