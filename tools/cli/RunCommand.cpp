// `tessera run`: one inference on .npy inputs; every graph output written as DIR/<name>.npy.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "tessera/OnnxImporter.hpp"
#include "tessera/Session.hpp"
#include "tools/cli/Commands.hpp"
#include "tools/cli/GraphInputs.hpp"
#include "tools/cli/Json.hpp"
#include "tools/cli/Npy.hpp"
#include "tools/cli/TraceFiles.hpp"

namespace tessera {
namespace cli {

const char* const kRunHelp =
    "usage: tessera run MODEL.onnx [--backend cpu|opencl|vulkan|auto] [--precision fp32|fp16]\n"
    "                  [--threads N] [--input NAME=FILE.npy]... [--output-dir DIR] [--plan]\n"
    "                  [--trace DIR]\n"
    "\n"
    "Runs the model on the inputs given. Every graph input needs an --input; each graph\n"
    "output is written to DIR/<output name>.npy (characters other than letters, digits,\n"
    "'.', '-' and '_' become '_'). DIR defaults to the current directory and is created\n"
    "if missing.\n"
    "A first run plans (with the values of inputs such as an `axis` fed at run time);\n"
    "the latency printed is that of a second run, which writes the outputs.\n"
    "Defaults: --backend cpu, --precision fp32, --threads <hardware threads>.\n"
    "`auto` picks the best backend present: a Vulkan GPU, then an OpenCL GPU, then the CPU\n"
    "(Vulkan/OpenCL drivers that run on the CPU, like lavapipe and PoCL, only by name).\n"
    "--plan prints the placement plan: each node's backend, the copies and layout\n"
    "conversions the session inserted, and the memory plan.\n"
    "--trace DIR writes every node's outputs of the timed run to DIR/<node>.<output>.npy, with\n"
    "DIR/trace.json (in execution order: node, op, backend, dtype, shape, min/max/mean, NaN\n"
    "and Inf counts, folded constants marked) and DIR/index.tsv (value name, tab, file), which\n"
    "`tessera diff --reference DIR` reads. Nodes run where they would untraced; each output is\n"
    "also read back to the host (docs/DEBUGGING.md).\n";

int runCommand(ArgReader& args) {
  SessionChoice choice;
  choice.threads = defaultThreads();
  std::string model;
  std::string outputDir = ".";
  std::map<std::string, std::string> inputFiles;
  bool printPlan = false;
  std::string traceDir;
  while (!args.done()) {
    std::string v;
    if (choice.parse(args)) continue;
    if (args.flag("--plan")) {
      printPlan = true;
    } else if (args.option("--trace", &v)) {
      traceDir = v;
    } else if (args.option("--output-dir", &v)) {
      outputDir = v;
    } else if (args.option("--input", &v)) {
      const auto nv = parseNameValue("--input", v, "NAME=FILE.npy");
      if (!inputFiles.emplace(nv.first, nv.second).second) throw UsageError("input '" + nv.first + "' is given twice");
    } else if (args.peek().rfind("--", 0) == 0) {
      throw UsageError("unknown option '" + args.peek() + "'");
    } else if (model.empty()) {
      model = args.take();
    } else {
      throw UsageError("unexpected argument '" + args.peek() + "'");
    }
  }
  if (model.empty()) throw UsageError("no model given");

  std::shared_ptr<Graph> graph;
  check(loadOnnxModel(model, &graph));

  std::map<std::string, Tensor> inputs;
  check(gatherInputs(*graph, inputFiles, {}, false, &inputs));

  std::unique_ptr<Session> session;
  SessionOptions options = choice.sessionOptions();
  options.trace = !traceDir.empty();
  check(Session::create(graph, options, &session));
  // The first run plans: planning may need the values of some inputs (a Split's sizes,
  // a Reshape target fed at run time), which Session::resize(shapes) alone does not have.
  std::map<std::string, Tensor> outputs;
  check(session->run(inputs, &outputs));
  const auto start = std::chrono::steady_clock::now();
  check(session->run(inputs, &outputs));
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  std::error_code ec;
  std::filesystem::create_directories(outputDir, ec);
  if (ec) throw CommandError("cannot create output directory '" + outputDir + "': " + ec.message());
  std::set<std::string> usedFiles;
  for (const ValueInfo& o : graph->outputs) {
    auto it = outputs.find(o.name);
    if (it == outputs.end()) throw CommandError("the session produced no output '" + o.name + "'");
    // Two names may sanitize alike ("a/b", "a_b"): number the later ones.
    std::string file = safeFileName(o.name);
    for (int n = 1; !usedFiles.insert(file).second; ++n) file = safeFileName(o.name) + "_" + std::to_string(n);
    const std::string path = (std::filesystem::path(outputDir) / (file + ".npy")).string();
    check(writeNpy(path, it->second));
    std::printf("output '%s' %s %s -> %s\n", o.name.c_str(), dataTypeName(it->second.dtype()),
                shapeToString(it->second.shape()).c_str(), path.c_str());
  }
  if (printPlan) std::printf("%s", session->report().toString().c_str());
  if (!traceDir.empty()) {
    std::vector<TracedOutput> trace;
    check(session->trace(&trace));
    check(writeTraceDir(traceDir, trace, "\"model\": " + jsonString(model) + ", \"backend\": " +
                                           jsonString(backendTypeName(session->backends().front())) +
                                           ", \"precision\": " + jsonString(precisionName(choice.precision)) + ", "));
    std::printf("trace: %zu node outputs -> %s\n", trace.size(), traceDir.c_str());
  }
  const BackendType first = session->backends().front();
  std::printf("latency: %.3f ms (%s, %s, %s, %d threads)\n", ms, backendTypeName(first),
              session->deviceName(first).c_str(), precisionName(choice.precision), choice.threads);
  return 0;
}

}  // namespace cli
}  // namespace tessera
