// RNN, GRU and LSTM (semantics: ops/Recurrent.hpp): every weight, bias and state shape is
// checked against X, hidden_size and the number of directions; Y is [seq, D, batch, H]
// (layout 1: [batch, seq, D, H]) and Y_h / Y_c are [D, batch, H] (layout 1: [batch, D, H]).
#include "ops/Recurrent.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status checkShape(ShapeContext& ctx, const Tensor* t, const char* name, const Shape& expected, DataType dt) {
  if (!t) return Status::ok();
  if (t->dtype() != dt)
    return ctx.error(std::string(name) + " " + t->describe() + " must be " + dataTypeName(dt) + " like X");
  if (t->shape() != expected)
    return ctx.error(std::string(name) + " " + t->describe() + " must be " + shapeToString(expected));
  return Status::ok();
}

Status recurrentShape(ShapeContext& ctx) {
  RecurrentParams p;
  TESSERA_RETURN_IF_ERROR(RecurrentParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(kRnnX);
  const Tensor* w = ctx.input(kRnnW);
  const Tensor* r = ctx.input(kRnnR);
  if (!x || !w || !r) return ctx.error("needs X, W and R (inputs 0 to 2)");
  if (!isFloat(x->dtype())) return ctx.error("X " + x->describe() + " must be a float tensor");
  if (x->rank() != 3) return ctx.error("X " + x->describe() + " must be 3-D");
  if (r->rank() != 3) return ctx.error("R " + r->describe() + " must be 3-D [num_directions, gates*hidden, hidden]");
  const bool batchMajor = p.layout == 1;
  const int64_t seq = x->dim(batchMajor ? 1 : 0), batch = x->dim(batchMajor ? 0 : 1), input = x->dim(2);
  const int64_t D = p.numDirections(), G = p.gates();
  const int64_t H = p.hiddenSize > 0 ? p.hiddenSize : r->dim(2);
  if (H <= 0) return ctx.error("R " + r->describe() + " gives no hidden size");
  if (p.hiddenSize > 0 && r->dim(2) != H)
    return ctx.error("R " + r->describe() + " does not match hidden_size " + std::to_string(H));

  const DataType dt = x->dtype();
  TESSERA_RETURN_IF_ERROR(checkShape(ctx, w, "W", {D, G * H, input}, dt));
  TESSERA_RETURN_IF_ERROR(checkShape(ctx, r, "R", {D, G * H, H}, dt));
  TESSERA_RETURN_IF_ERROR(checkShape(ctx, ctx.input(kRnnB), "B", {D, 2 * G * H}, dt));
  const Shape stateShape = batchMajor ? Shape{batch, D, H} : Shape{D, batch, H};
  TESSERA_RETURN_IF_ERROR(checkShape(ctx, ctx.input(kRnnInitialH), "initial_h", stateShape, dt));
  if (const Tensor* lens = ctx.input(kRnnSequenceLens)) {
    if (lens->dtype() != DataType::kI32 && lens->dtype() != DataType::kI64)
      return ctx.error("sequence_lens " + lens->describe() + " must be int32");
    if (lens->shape() != Shape{batch})
      return ctx.error("sequence_lens " + lens->describe() + " must be [" + std::to_string(batch) + "] (the batch)");
  }
  if (p.kind == RecurrentKind::kLstm) {
    TESSERA_RETURN_IF_ERROR(checkShape(ctx, ctx.input(kRnnInitialC), "initial_c", stateShape, dt));
    TESSERA_RETURN_IF_ERROR(checkShape(ctx, ctx.input(kRnnP), "P", {D, 3 * H}, dt));
  } else if (ctx.inputCount() > kRnnInitialC) {
    return ctx.error("takes at most 6 inputs, has " + std::to_string(ctx.inputCount()));
  }

  ctx.output(0) = Tensor(batchMajor ? Shape{batch, seq, D, H} : Shape{seq, D, batch, H}, dt);
  ctx.output(1) = Tensor(stateShape, dt);
  if (p.kind == RecurrentKind::kLstm) ctx.output(2) = Tensor(stateShape, dt);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(RNN, recurrentShape);
TESSERA_REGISTER_SHAPE(GRU, recurrentShape);
TESSERA_REGISTER_SHAPE(LSTM, recurrentShape);

}  // namespace tessera
