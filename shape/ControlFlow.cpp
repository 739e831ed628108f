// If, Loop and Scan: output dtypes from their sub-graphs' outputs. Their shapes come from the
// run (a branch taken, a trip count), so the node runs in a stage of its own
// (ShapeContext::shapesFromValues; core/src/ControlFlow.hpp runs it).
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// The op's own inputs: the importer appends the outer-scope values after them.
size_t ownInputCount(const ShapeContext& ctx) {
  return ctx.inputCount() - subgraphOuterInputs(ctx.node).size();
}

Status requireGraph(const ShapeContext& ctx, const char* attr, const Graph** g) {
  *g = ctx.node.attrs.getGraph(attr);
  if (!*g) return ctx.error(std::string("attribute '") + attr + "' (a sub-graph) is missing");
  return Status::ok();
}

// Node outputs [0, n) take the dtypes of body outputs [first, first + n).
Status outputTypesFrom(ShapeContext& ctx, const Graph& body, size_t first, const char* attr) {
  if (body.outputs.size() != first + ctx.node.outputs.size())
    return ctx.error(std::string(attr) + " has " + std::to_string(body.outputs.size()) + " outputs; the node needs " +
                     std::to_string(first + ctx.node.outputs.size()));
  for (size_t i = 0; i < ctx.node.outputs.size(); ++i) ctx.output(i) = Tensor(Shape{}, body.outputs[first + i].dtype);
  ctx.shapesFromValues = true;
  return Status::ok();
}

Status ifShape(ShapeContext& ctx) {
  const Graph *thenG, *elseG;
  TESSERA_RETURN_IF_ERROR(requireGraph(ctx, "then_branch", &thenG));
  TESSERA_RETURN_IF_ERROR(requireGraph(ctx, "else_branch", &elseG));
  if (ownInputCount(ctx) != 1 || !ctx.input(0)) return ctx.error("needs exactly one input, 'cond'");
  if (thenG->outputs.size() != elseG->outputs.size())
    return ctx.error("then_branch has " + std::to_string(thenG->outputs.size()) + " outputs, else_branch " +
                     std::to_string(elseG->outputs.size()));
  return outputTypesFrom(ctx, *thenG, 0, "then_branch");
}

Status loopShape(ShapeContext& ctx) {
  const Graph* body;
  TESSERA_RETURN_IF_ERROR(requireGraph(ctx, "body", &body));
  const size_t own = ownInputCount(ctx);
  if (own < 2) return ctx.error("needs inputs 'M' and 'cond' (each may be empty) before the loop-carried values");
  if (body->inputs.size() != own)
    return ctx.error("body takes " + std::to_string(body->inputs.size()) + " inputs; the node gives " +
                     std::to_string(own) + " (iteration number, condition, loop-carried values)");
  return outputTypesFrom(ctx, *body, 1, "body");
}

Status scanShape(ShapeContext& ctx) {
  const Graph* body;
  TESSERA_RETURN_IF_ERROR(requireGraph(ctx, "body", &body));
  const size_t own = ownInputCount(ctx) - (ctx.node.opset < 9 ? 1 : 0);  // opset 8: sequence_lens first
  if (body->inputs.size() != own)
    return ctx.error("body takes " + std::to_string(body->inputs.size()) + " inputs; the node gives " +
                     std::to_string(own));
  return outputTypesFrom(ctx, *body, 0, "body");
}

}  // namespace

TESSERA_REGISTER_SHAPE(If, ifShape);
TESSERA_REGISTER_SHAPE(Loop, loopShape);
TESSERA_REGISTER_SHAPE(Scan, scanShape);

}  // namespace tessera
