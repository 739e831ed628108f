// `tessera diff`: the op that makes a backend (or fp16) differ from a reference.
#include <cstdio>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "tessera/OnnxImporter.hpp"
#include "tessera/Session.hpp"
#include "tools/cli/Commands.hpp"
#include "tools/cli/GraphInputs.hpp"
#include "tools/cli/Json.hpp"
#include "tools/cli/TraceFiles.hpp"

namespace tessera {
namespace cli {

const char* const kDiffHelp =
    "usage: tessera diff MODEL.onnx --backend cpu|opencl|vulkan [--precision fp32|fp16]\n"
    "                   [--reference cpu|DIR] [--input NAME=FILE.npy]... [--shape NAME=DIMS]...\n"
    "                   [--rtol R] [--atol A] [--threads N] [--json]\n"
    "\n"
    "Runs the model on the reference and on --backend with every node's outputs traced,\n"
    "compares them value by value, and names the op that introduced the difference: the\n"
    "first node (in execution order) whose output is out of tolerance while all its inputs\n"
    "were within it. Prints both values at its worst element and how the largest error grew\n"
    "along the way.\n"
    "The reference is the CPU backend in fp32 (default), or DIR: a directory of .npy tensors\n"
    "listed in DIR/index.tsv (value name, tab, file), as `tessera run --trace DIR` writes it\n"
    "or tests/models/ort_trace.mjs for ONNX Runtime's intermediate outputs.\n"
    "Inputs not given with --input are random (fixed seed), of the --shape given or the\n"
    "model's fixed shape. A value is within tolerance when |value - reference| <= atol +\n"
    "rtol * |reference| for every element; defaults: rtol 1e-3, atol 1e-4 (fp16: 0.05, 0.05).\n"
    "Exit status: 0 when every value is within tolerance, 3 when one is not.\n";

namespace {

Status tracedRun(const std::shared_ptr<Graph>& graph, SessionOptions options,
                 const std::map<std::string, Tensor>& inputs, std::vector<TracedOutput>* trace,
                 std::string* device) {
  options.trace = true;
  std::unique_ptr<Session> session;
  TESSERA_RETURN_IF_ERROR(Session::create(graph, options, &session));
  std::map<std::string, Tensor> outputs;
  TESSERA_RETURN_IF_ERROR(session->run(inputs, &outputs));
  const BackendType first = session->backends().front();
  *device = std::string(backendTypeName(first)) + " (" + session->deviceName(first) + ")";
  return session->trace(trace);
}

// "[0, 3, 7, 1]" for flat index `i` of shape `s`.
std::string indexOf(int64_t i, const Shape& s) {
  std::vector<int64_t> idx(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    idx[d] = s[d] > 0 ? i % s[d] : 0;
    i = s[d] > 0 ? i / s[d] : 0;
  }
  std::string out = "[";
  for (size_t d = 0; d < idx.size(); ++d) out += (d ? ", " : "") + std::to_string(idx[d]);
  return out + "]";
}

std::string entryJson(const TracedOutput& t, const TracedDifference& d) {
  return "{\"node\": " + jsonString(t.node) + ", \"op\": " + jsonString(t.opType) + ", \"backend\": " +
         jsonString(t.backend) + ", \"folded\": " + (t.folded ? "true" : "false") + ", \"output\": " +
         jsonString(t.output) + ", \"compared\": " + (d.compared ? "true" : "false") + ", \"within\": " +
         (d.within ? "true" : "false") + ", \"max_abs_err\": " + jsonNumber(d.maxAbsErr) +
         ", \"out_of_tolerance\": " + std::to_string(d.outOfTolerance) + ", \"worst_index\": " +
         (d.worst >= 0 ? indexOf(d.worst, t.value.shape()) : "null") + ", \"reference\": " + jsonNumber(d.reference) +
         ", \"value\": " + jsonNumber(d.value) + (d.note.empty() ? "" : ", \"note\": " + jsonString(d.note)) + "}";
}

}  // namespace

int diffCommand(ArgReader& args) {
  SessionChoice choice;
  choice.threads = defaultThreads();
  choice.backend = "";
  std::string model, reference = "cpu";
  std::map<std::string, std::string> inputFiles;
  std::map<std::string, Shape> shapes;
  double rtol = -1, atol = -1;
  bool json = false;
  while (!args.done()) {
    std::string v;
    if (choice.parse(args)) continue;
    if (args.flag("--json")) {
      json = true;
    } else if (args.option("--reference", &v)) {
      reference = v;
    } else if (args.option("--rtol", &v)) {
      rtol = parseDouble("--rtol", v);
    } else if (args.option("--atol", &v)) {
      atol = parseDouble("--atol", v);
    } else if (args.option("--input", &v)) {
      const auto nv = parseNameValue("--input", v, "NAME=FILE.npy");
      if (!inputFiles.emplace(nv.first, nv.second).second) throw UsageError("input '" + nv.first + "' is given twice");
    } else if (args.option("--shape", &v)) {
      const auto nv = parseNameValue("--shape", v, "NAME=DIMS");
      if (!parseShape(nv.second, &shapes[nv.first]))
        throw UsageError("--shape: '" + nv.second + "' is not a shape like 1x3x48x320");
    } else if (args.peek().rfind("--", 0) == 0) {
      throw UsageError("unknown option '" + args.peek() + "'");
    } else if (model.empty()) {
      model = args.take();
    } else {
      throw UsageError("unexpected argument '" + args.peek() + "'");
    }
  }
  if (model.empty()) throw UsageError("no model given");
  if (choice.backend.empty()) throw UsageError("--backend is required (the backend to check)");
  const bool fp16 = choice.precision == Precision::kFP16;
  if (rtol < 0) rtol = fp16 ? 0.05 : 1e-3;
  if (atol < 0) atol = fp16 ? 0.05 : 1e-4;

  std::shared_ptr<Graph> graph;
  check(loadOnnxModel(model, &graph));
  std::map<std::string, Tensor> inputs;
  check(gatherInputs(*graph, inputFiles, shapes, true, &inputs));

  std::vector<TracedOutput> ref, got;
  std::string refName, gotName;
  if (reference == "cpu") {
    SessionOptions cpu;
    cpu.threads = choice.threads;
    check(tracedRun(graph, cpu, inputs, &ref, &refName));
    refName += " fp32";
  } else {
    check(readTraceDir(reference, &ref));
    refName = reference;
  }
  check(tracedRun(graph, choice.sessionOptions(), inputs, &got, &gotName));
  gotName += std::string(" ") + precisionName(choice.precision);

  const Divergence div = findDivergence(ref, got, rtol, atol);
  int compared = 0, outside = 0;
  for (const TracedDifference& d : div.values) {
    compared += d.compared ? 1 : 0;
    outside += d.within ? 0 : 1;
  }
  if (json) {
    std::printf("{\"model\": %s, \"reference\": %s, \"candidate\": %s, \"rtol\": %s, \"atol\": %s,\n",
                jsonString(model).c_str(), jsonString(refName).c_str(), jsonString(gotName).c_str(),
                jsonNumber(rtol).c_str(), jsonNumber(atol).c_str());
    std::printf(" \"first\": %s,\n \"values\": [\n",
                div.first >= 0 ? entryJson(got[div.first], div.values[div.first]).c_str() : "null");
    for (size_t i = 0; i < got.size(); ++i)
      std::printf("  %s%s\n", entryJson(got[i], div.values[i]).c_str(), i + 1 < got.size() ? "," : "");
    std::printf(" ]}\n");
    return div.first >= 0 ? 3 : 0;
  }
  std::printf("reference: %s\ncandidate: %s\ntolerance: |value - reference| <= %g + %g * |reference|\n",
              refName.c_str(), gotName.c_str(), atol, rtol);
  std::printf("%zu node outputs, %d compared, %d out of tolerance\n", got.size(), compared, outside);
  if (div.first < 0) {
    std::printf("every compared value is within tolerance\n");
    return 0;
  }
  // The largest error so far, each time it grows, then the node that introduced the difference.
  std::printf("\nlargest error so far, where it grows, up to the first node out of tolerance:\n");
  double largest = 0;
  for (int i = 0; i <= div.first; ++i) {
    const TracedDifference& d = div.values[i];
    if (!d.compared || (!(d.maxAbsErr > largest) && i != div.first)) continue;
    largest = std::max(largest, d.maxAbsErr);
    std::printf("  %-40s %-8s %-24s max |err| %.3g%s\n", got[i].node.c_str(), got[i].backend.c_str(),
                got[i].output.c_str(), d.maxAbsErr, d.within ? "" : "  (out of tolerance)");
  }
  const TracedOutput& t = got[div.first];
  const TracedDifference& d = div.values[div.first];
  std::printf("\nfirst divergent op: %s on %s%s\n", t.node.c_str(), t.backend.c_str(), t.folded ? " (folded)" : "");
  std::printf("  output '%s' %s %s: %lld of %lld elements out of tolerance, max |err| %.6g\n", t.output.c_str(),
              dataTypeName(t.value.dtype()), shapeToString(t.value.shape()).c_str(),
              static_cast<long long>(d.outOfTolerance), static_cast<long long>(t.value.elementCount()), d.maxAbsErr);
  if (d.worst >= 0)
    std::printf("  furthest out of tolerance at %s: reference %.9g, %s %.9g\n", indexOf(d.worst, t.value.shape()).c_str(),
                d.reference, t.backend.c_str(), d.value);
  if (!d.note.empty()) std::printf("  %s\n", d.note.c_str());
  std::printf("  its inputs:");
  for (const std::string& in : t.inputs) {
    if (in.empty()) continue;
    int k = -1;
    for (size_t j = 0; j < got.size(); ++j)
      if (got[j].output == in) k = static_cast<int>(j);
    if (k < 0) std::printf(" '%s' (graph input or constant)", in.c_str());
    else std::printf(" '%s' (max |err| %.3g)", in.c_str(), div.values[k].maxAbsErr);
  }
  std::printf("\n");
  return 3;
}

}  // namespace cli
}  // namespace tessera
