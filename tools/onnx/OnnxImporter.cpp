// ONNX ModelProto -> Graph: opsets, initializers, graph inputs/outputs, nodes and their
// attributes; then the Conv+BatchNormalization fold, the unknown-op check and validation.
#include "tessera/OnnxImporter.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <new>
#include <set>
#include <sstream>

#include "tessera_onnx/onnx.pb.h"
#include "tessera/Registry.hpp"
#include "tools/onnx/ConstantsToInitializers.hpp"
#include "tools/onnx/FoldConvAffine.hpp"
#include "tools/onnx/FoldConvBatchNorm.hpp"
#include "tools/onnx/FuseActivationAffine.hpp"
#include "tools/onnx/FuseConvAdd.hpp"
#include "tools/onnx/FuseConvActivation.hpp"
#include "tools/onnx/FuseConvGelu.hpp"
#include "tools/onnx/FuseConvSwish.hpp"
#include "tools/onnx/FuseHardSwish.hpp"
#include "tools/onnx/FuseLayerNorm.hpp"
#include "tools/onnx/FuseMatMulBias.hpp"
#include "tools/onnx/FuseResidualScale.hpp"
#include "tools/onnx/FuseSqueezeExcite.hpp"
#include "tools/onnx/FuseMatMulScale.hpp"
#include "tools/onnx/FuseTransposeMatMul.hpp"
#include "tools/onnx/OnnxTensor.hpp"

namespace tessera {
namespace {

using onnximport::dataTypeFromOnnx;
using onnximport::tensorFromProto;

// Newest default-domain opset whose semantics the shape functions are written for.
constexpr int kNewestOpset = 17;

std::string normalizeDomain(const std::string& d) { return d == "ai.onnx" ? std::string() : d; }

// Domain -> opset version imported by the model.
using OpsetMap = std::map<std::string, int64_t>;

Status readOpsets(const tessera_onnx::ModelProto& model, OpsetMap* opsets) {
  for (const auto& o : model.opset_import()) {
    (*opsets)[normalizeDomain(o.domain())] = o.version();
  }
  // IR version 1 and 2 models predate opset_import: they mean opset 1.
  if (opsets->empty() && model.ir_version() < 3) (*opsets)[""] = 1;
  if (opsets->empty()) return Status::invalid("the model imports no opset (opset_import is empty)");
  auto def = opsets->find("");
  if (def != opsets->end() && def->second > kNewestOpset) {
    return Status::unsupported("the model uses opset " + std::to_string(def->second) +
                               " of the default ONNX domain; Tessera supports opsets up to " +
                               std::to_string(kNewestOpset));
  }
  return Status::ok();
}

Status convertValueInfo(const tessera_onnx::ValueInfoProto& v, const char* role, ValueInfo* out) {
  const std::string what = std::string(role) + " '" + v.name() + "'";
  if (v.name().empty()) return Status::invalid(std::string("a graph ") + role + " has no name");
  out->name = v.name();
  out->dtype = DataType::kUnknown;
  out->hasShape = false;
  out->dims.clear();
  if (!v.has_type()) return Status::ok();
  const tessera_onnx::TypeProto& type = v.type();
  if (type.value_case() != tessera_onnx::TypeProto::kTensorType) {
    return Status::unsupported(what + " is not a tensor (sequence, map, optional or sparse "
                               "values are not supported)");
  }
  const auto& tt = type.tensor_type();
  if (tt.elem_type() != tessera_onnx::TensorProto::UNDEFINED) {
    TESSERA_RETURN_IF_ERROR(dataTypeFromOnnx(tt.elem_type(), what, &out->dtype));
  }
  if (tt.has_shape()) {
    out->hasShape = true;
    for (const auto& d : tt.shape().dim()) {
      // Named (dim_param) or missing extents come from the input given at run time.
      const bool known = d.value_case() == tessera_onnx::TensorShapeProto::Dimension::kDimValue &&
                         d.dim_value() >= 0;
      out->dims.push_back(known ? d.dim_value() : -1);
    }
  }
  return Status::ok();
}

// Very old models leave AttributeProto::type unset; infer it from the field present.
tessera_onnx::AttributeProto::AttributeType attributeType(const tessera_onnx::AttributeProto& a) {
  using AP = tessera_onnx::AttributeProto;
  if (a.type() != AP::UNDEFINED) return a.type();
  if (a.has_f()) return AP::FLOAT;
  if (a.has_i()) return AP::INT;
  if (a.has_s()) return AP::STRING;
  if (a.has_t()) return AP::TENSOR;
  if (a.has_g()) return AP::GRAPH;
  if (a.floats_size()) return AP::FLOATS;
  if (a.ints_size()) return AP::INTS;
  if (a.strings_size()) return AP::STRINGS;
  if (a.tensors_size()) return AP::TENSORS;
  if (a.graphs_size()) return AP::GRAPHS;
  return AP::UNDEFINED;
}

Status convertGraph(const tessera_onnx::GraphProto& gp, const OpsetMap& opsets, bool subgraph, Graph* g);

Status convertAttribute(const tessera_onnx::AttributeProto& a, const OpsetMap& opsets, const Node& node,
                        Attribute* out) {
  using AP = tessera_onnx::AttributeProto;
  using K = Attribute::Kind;
  const std::string what = node.label() + ": attribute '" + a.name() + "'";
  if (!a.ref_attr_name().empty()) {
    return Status::unsupported(what + " refers to a function attribute, which only functions "
                               "may do");
  }
  switch (attributeType(a)) {
    case AP::FLOAT: out->kind = K::kFloat; out->f = a.f(); return Status::ok();
    case AP::INT: out->kind = K::kInt; out->i = a.i(); return Status::ok();
    case AP::STRING: out->kind = K::kString; out->s = a.s(); return Status::ok();
    case AP::FLOATS:
      out->kind = K::kFloats;
      out->floats.assign(a.floats().begin(), a.floats().end());
      return Status::ok();
    case AP::INTS:
      out->kind = K::kInts;
      out->ints.assign(a.ints().begin(), a.ints().end());
      return Status::ok();
    case AP::STRINGS:
      out->kind = K::kStrings;
      out->strings.assign(a.strings().begin(), a.strings().end());
      return Status::ok();
    case AP::TENSOR:
      out->kind = K::kTensor;
      return tensorFromProto(a.t(), &out->t).withContext(what);
    case AP::GRAPH: {
      auto g = std::make_shared<Graph>();
      TESSERA_RETURN_IF_ERROR(convertGraph(a.g(), opsets, true, g.get()).withContext(what));
      out->kind = K::kGraph;
      out->g = std::move(g);
      return Status::ok();
    }
    case AP::GRAPHS:
      return Status::unsupported(what + " holds a list of sub-graphs, which no supported op takes");
    case AP::UNDEFINED:
      return Status::invalid(what + " has no value");
    default:
      return Status::unsupported(what + " has attribute type " +
                                 AP::AttributeType_Name(attributeType(a)) +
                                 ", which Tessera does not support");
  }
}

Status convertNode(const tessera_onnx::NodeProto& n, const OpsetMap& opsets, const std::string& name,
                   Node* out) {
  out->name = name;
  out->opType = n.op_type();
  out->domain = normalizeDomain(n.domain());
  if (out->opType.empty()) return Status::invalid("node '" + name + "' has no op_type");
  auto opset = opsets.find(out->domain);
  if (opset == opsets.end()) {
    return Status::invalid(out->label() + " uses domain '" + out->domain +
                           "', which the model does not import (no opset_import entry)");
  }
  out->opset = static_cast<int>(std::min<int64_t>(opset->second, INT_MAX));
  out->inputs.assign(n.input().begin(), n.input().end());
  out->outputs.assign(n.output().begin(), n.output().end());
  for (const auto& a : n.attribute()) {
    if (a.name().empty()) return Status::invalid(out->label() + ": an attribute has no name");
    Attribute attr;
    TESSERA_RETURN_IF_ERROR(convertAttribute(a, opsets, *out, &attr));
    out->attrs.set(a.name(), std::move(attr));
  }
  // The enclosing-scope values its sub-graphs read become inputs too (Graph.hpp).
  for (const std::string& name : subgraphOuterInputs(*out)) out->inputs.push_back(name);
  return Status::ok();
}

// Names nodes that have none "<OpType>_<index>", avoiding names already taken.
std::string nodeName(const tessera_onnx::NodeProto& n, int index, std::set<std::string>* taken) {
  if (!n.name().empty()) {
    taken->insert(n.name());
    return n.name();
  }
  std::string name = n.op_type() + "_" + std::to_string(index);
  while (taken->count(name)) name += "_";
  taken->insert(name);
  return name;
}

// Lists every node whose op no shape function knows, so one run shows all that is missing.
Status checkKnownOps(const Graph& g) {
  const auto& registry = ShapeRegistry::instance();
  std::vector<std::string> unknown;
  for (const Node& n : g.nodes) {
    if (registry.knows(n.domain, n.opType)) continue;
    unknown.push_back("unknown op '" + n.opType + "' (domain '" + n.domain + "') in node '" +
                      n.name + "'");
  }
  if (unknown.empty()) return Status::ok();
  std::ostringstream m;
  for (size_t i = 0; i < unknown.size(); ++i) m << (i ? "; " : "") << unknown[i];
  return Status::unsupported(m.str());
}

// The values a sub-graph reads that it neither receives, holds nor makes: its outer scope.
void findOuterScope(Graph* g) {
  std::set<std::string> local;
  for (const ValueInfo& in : g->inputs) local.insert(in.name);
  for (const auto& kv : g->initializers) local.insert(kv.first);
  std::set<std::string> seen;
  auto read = [&](const std::string& name) {
    if (!name.empty() && !local.count(name) && seen.insert(name).second) g->outerScope.push_back(name);
  };
  for (const Node& n : g->nodes) {
    for (const std::string& in : n.inputs) read(in);
    for (const std::string& o : n.outputs) local.insert(o);
  }
  for (const ValueInfo& o : g->outputs) read(o.name);
}

Status convertGraph(const tessera_onnx::GraphProto& gp, const OpsetMap& opsets, bool subgraph, Graph* g) {
  g->name = gp.name();
  if (gp.sparse_initializer_size() > 0) {
    return Status::unsupported("the graph has sparse initializers, which Tessera does not "
                               "support");
  }
  for (const auto& init : gp.initializer()) {
    if (init.name().empty()) return Status::invalid("an initializer has no name");
    if (g->initializers.count(init.name())) {
      return Status::invalid("initializer '" + init.name() + "' is defined twice");
    }
    Tensor t;
    TESSERA_RETURN_IF_ERROR(tensorFromProto(init, &t).withContext("initializer"));
    g->initializers.emplace(init.name(), std::move(t));
  }
  for (const auto& in : gp.input()) {
    // Older exporters list initializers as inputs too; those are weights, not inputs.
    if (g->initializers.count(in.name()) && !subgraph) continue;
    ValueInfo v;
    TESSERA_RETURN_IF_ERROR(convertValueInfo(in, "input", &v));
    g->inputs.push_back(std::move(v));
  }
  for (const auto& o : gp.output()) {
    ValueInfo v;
    TESSERA_RETURN_IF_ERROR(convertValueInfo(o, "output", &v));
    g->outputs.push_back(std::move(v));
  }
  std::set<std::string> taken;
  for (const auto& n : gp.node()) {
    if (!n.name().empty()) taken.insert(n.name());
  }
  g->nodes.reserve(gp.node_size());
  for (int i = 0; i < gp.node_size(); ++i) {
    Node node;
    TESSERA_RETURN_IF_ERROR(convertNode(gp.node(i), opsets, nodeName(gp.node(i), i, &taken),
                                        &node));
    g->nodes.push_back(std::move(node));
  }
  TESSERA_RETURN_IF_ERROR(checkKnownOps(*g));
  if (subgraph) {  // run as given: each body is planned by its own Session
    findOuterScope(g);
    return g->validate();
  }
  // Import-time simplifications, exact up to float rounding (docs/ARCHITECTURE.md).
  constantsToInitializers(g);
  TESSERA_RETURN_IF_ERROR(foldConvBatchNorm(g));
  // A bias exported as a separate Add sits between a conv and its BN until foldConvAffine
  // takes it in (PP-OCRv4 det's ConvTranspose, Add, BN): then the BN folds too.
  if (foldConvAffine(g) > 0) TESSERA_RETURN_IF_ERROR(foldConvBatchNorm(g));
  fuseHardSwish(g);
  fuseLayerNorm(g);
  fuseMatMulBias(g);
  fuseConvGelu(g);  // after fuseMatMulBias; before fuseMatMulScale takes its 0.5 into the next MatMul
  fuseTransposeMatMul(g);
  fuseMatMulScale(g);  // after fuseMatMulBias: alpha scales the product, not the bias
  fuseConvAdd(g);  // before the activation that may follow the Add
  fuseConvSwish(g);
  fuseConvActivation(g);
  fuseActivationAffine(g);
  fuseResidualScale(g);
  fuseSqueezeExcite(g);  // after the residual scale took its Add
  return g->validate();
}

Status importGraph(const tessera_onnx::ModelProto& model, Graph* g) {
  OpsetMap opsets;
  TESSERA_RETURN_IF_ERROR(readOpsets(model, &opsets));
  return convertGraph(model.graph(), opsets, false, g);
}

Status importBytes(const void* data, size_t size, const std::string& source,
                   std::shared_ptr<Graph>* out) {
  if (size > static_cast<size_t>(INT_MAX)) {
    return Status::unsupported("ONNX model " + source + " is larger than 2 GiB, which needs "
                               "external data (not supported)");
  }
  tessera_onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) {
    return Status::invalid("not a valid ONNX model: " + source +
                           " (protobuf parsing failed: truncated or not an ONNX file)");
  }
  if (!model.has_graph()) {
    return Status::invalid("not a valid ONNX model: " + source + " (it holds no graph)");
  }
  auto g = std::make_shared<Graph>();
  try {
    TESSERA_RETURN_IF_ERROR(importGraph(model, g.get()).withContext(source));
  } catch (const std::bad_alloc&) {
    return Status::outOfMemory(source + ": out of memory while importing the model");
  }
  *out = std::move(g);
  return Status::ok();
}

}  // namespace

Status loadOnnxModel(const std::string& path, std::shared_ptr<Graph>* out) {
  std::string bytes;
  TESSERA_RETURN_IF_ERROR(onnximport::readFileBytes(path, &bytes));
  return importBytes(bytes.data(), bytes.size(), path, out);
}

Status loadOnnxModelFromBytes(const void* data, size_t size, std::shared_ptr<Graph>* out) {
  if (data == nullptr && size > 0) return Status::invalid("loadOnnxModelFromBytes: data is null");
  return importBytes(data, size, "<memory>", out);
}

Status loadOnnxTensor(const std::string& path, Tensor* out, std::string* name) {
  std::string bytes;
  TESSERA_RETURN_IF_ERROR(onnximport::readFileBytes(path, &bytes));
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return Status::unsupported("tensor file " + path + " is larger than 2 GiB");
  }
  tessera_onnx::TensorProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::invalid("not a valid ONNX tensor file: " + path +
                           " (protobuf parsing failed: truncated or not a TensorProto)");
  }
  try {
    TESSERA_RETURN_IF_ERROR(tensorFromProto(proto, out).withContext(path));
  } catch (const std::bad_alloc&) {
    return Status::outOfMemory(path + ": out of memory while reading the tensor");
  }
  if (name) *name = proto.name();
  return Status::ok();
}

}  // namespace tessera
