// `tessera bench`: latency of a model on random inputs (median/min/max/mean over runs).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "tessera/OnnxImporter.hpp"
#include "tessera/Session.hpp"
#include "tools/cli/Commands.hpp"
#include "tools/cli/GraphInputs.hpp"
#include "tools/cli/Json.hpp"
#include "tools/cli/ProfileMedians.hpp"

namespace tessera {
namespace cli {

const char* const kBenchHelp =
    "usage: tessera bench MODEL.onnx [--backend cpu|opencl|vulkan|auto] [--precision fp32|fp16]\n"
    "                    [--threads N] [--shape NAME=1x3x224x224]... [--runs N] [--warmup N]\n"
    "                    [--shape-cycle NAME=1x3x48x320,1x3x48x96,...] [--json] [--profile] [--plan]\n"
    "\n"
    "Times the model on random inputs (floats uniform in [-1, 1), integers 0). Inputs with\n"
    "dynamic dimensions need --shape. Prints median/min/max/mean latency in ms; --json prints\n"
    "one JSON object instead; --profile adds each step's median time over the runs (those at\n"
    "the last run's input shapes), a per-op-type summary, and the GPU dispatches (Vulkan\n"
    "vkCmdDispatch, OpenCL kernel enqueues) each step and the whole run issued; --plan\n"
    "prints the placement plan (node -> backend, inserted copies/conversions, memory plan).\n"
    "--shape-cycle gives input NAME a new shape on every run, in turn (one Session: how an\n"
    "OCR recogniser sees text lines of every width); the warm-up runs go through the list\n"
    "once more, and the mean per run is the figure to compare.\n"
    "Defaults: --backend cpu, --precision fp32, --threads <hardware threads>, --runs 10,\n"
    "--warmup 3.\n";

namespace {

struct BenchOptions {
  SessionChoice choice;
  std::string model;
  std::map<std::string, Shape> shapes;
  std::string cycleInput;          // --shape-cycle NAME
  std::vector<Shape> cycleShapes;  // its shapes, one per run in turn
  int runs = 10;
  int warmup = 3;
  bool json = false;
  bool profile = false;
  bool plan = false;
};

BenchOptions parseBenchOptions(ArgReader& args) {
  BenchOptions o;
  o.choice.threads = defaultThreads();
  while (!args.done()) {
    std::string v;
    if (o.choice.parse(args)) continue;
    if (args.option("--runs", &v)) {
      o.runs = parseInt("--runs", v, 1);
    } else if (args.option("--warmup", &v)) {
      o.warmup = parseInt("--warmup", v, 0);
    } else if (args.option("--shape", &v)) {
      const size_t eq = v.find('=');
      Shape s;
      if (eq == std::string::npos || eq == 0 || !parseShape(v.substr(eq + 1), &s)) {
        throw UsageError("--shape expects NAME=1x3x224x224, not '" + v + "'");
      }
      o.shapes[v.substr(0, eq)] = s;
    } else if (args.option("--shape-cycle", &v)) {
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) throw UsageError("--shape-cycle expects NAME=DIMS,DIMS,..., not '" + v + "'");
      o.cycleInput = v.substr(0, eq);
      std::string list = v.substr(eq + 1);
      for (size_t start = 0; start <= list.size();) {
        const size_t comma = std::min(list.find(',', start), list.size());
        Shape s;
        if (!parseShape(list.substr(start, comma - start), &s))
          throw UsageError("--shape-cycle: '" + list.substr(start, comma - start) + "' is not a shape like 1x3x48x320");
        o.cycleShapes.push_back(s);
        start = comma + 1;
      }
      o.shapes[o.cycleInput] = o.cycleShapes.front();
    } else if (args.flag("--json")) {
      o.json = true;
    } else if (args.flag("--plan")) {
      o.plan = true;
    } else if (args.flag("--profile")) {
      o.profile = true;
    } else if (args.peek().rfind("--", 0) == 0) {
      throw UsageError("unknown option '" + args.peek() + "'");
    } else if (o.model.empty()) {
      o.model = args.take();
    } else {
      throw UsageError("unexpected argument '" + args.peek() + "'");
    }
  }
  if (o.model.empty()) throw UsageError("no model given");
  return o;
}

// The concrete shape of each input: --shape where given, else the declared static shape.
std::map<std::string, Shape> inputShapes(const Graph& g, const BenchOptions& o) {
  std::map<std::string, Shape> shapes;
  std::string dynamic;
  for (const ValueInfo& v : g.inputs) {
    auto given = o.shapes.find(v.name);
    if (given != o.shapes.end()) {
      Tensor probe(given->second, v.dtype);
      check(checkInputMatches(v, probe, "--shape"));
      shapes[v.name] = given->second;
      continue;
    }
    const bool isStatic = v.hasShape && std::none_of(v.dims.begin(), v.dims.end(),
                                                     [](int64_t d) { return d < 0; });
    if (!isStatic) {
      dynamic += (dynamic.empty() ? "" : ", ") + v.name + " (" + declaredShape(v) + ")";
      continue;
    }
    shapes[v.name] = v.dims;
  }
  if (!dynamic.empty()) {
    throw CommandError("inputs with dynamic or unknown shapes need --shape NAME=DIMS: " + dynamic);
  }
  for (const auto& s : o.shapes) {
    if (!shapes.count(s.first)) throw UsageError("the model has no input '" + s.first + "'");
  }
  return shapes;
}

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

namespace {

// The GPU dispatches of a run: the sum over its steps (CPU steps have none).
int64_t dispatchesPerRun(const std::vector<Session::ProfileEntry>& steps) {
  int64_t n = 0;
  for (const auto& e : steps) n += std::max<int64_t>(e.dispatches, 0);
  return n;
}

// Per step: backend, time (device time marked '*'), GFLOP/s, GB/s and GPU dispatches; then
// per op type.
void printProfile(const std::vector<Session::ProfileEntry>& steps, int runs) {
  std::printf("profile: per-step medians of %d runs (* = device time), dispatches per run: %lld\n", runs,
              static_cast<long long>(dispatchesPerRun(steps)));
  std::printf("  %10s  %-7s %9s %8s %10s  %s\n", "ms", "backend", "GFLOP/s", "GB/s", "dispatches", "step");
  struct Total { double ms = 0, flops = 0; int count = 0; };
  std::map<std::string, Total> byOp;
  double all = 0;
  for (const auto& e : steps) {
    const double s = e.ms / 1e3;
    char gflops[32] = "-", gbs[32] = "-";
    if (e.work.flops > 0 && s > 0) std::snprintf(gflops, sizeof gflops, "%.2f", e.work.flops / s / 1e9);
    if (e.work.bytes > 0 && s > 0) std::snprintf(gbs, sizeof gbs, "%.2f", e.work.bytes / s / 1e9);
    char dispatches[32] = "-";
    if (e.dispatches >= 0) std::snprintf(dispatches, sizeof dispatches, "%lld", static_cast<long long>(e.dispatches));
    std::printf("  %9.3f%c  %-7s %9s %8s %10s  %s\n", e.ms, e.deviceTime ? '*' : ' ',
                backendTypeName(e.backend), gflops, gbs, dispatches, e.step.c_str());
    // A GPU segment's submit-and-wait overlaps its ops' device times: listed, not summed.
    if (e.step.rfind("segment ", 0) == 0) continue;
    Total& t = byOp[e.opType.empty() ? "(copies)" : e.opType];
    t.ms += e.ms;
    t.flops += e.work.flops;
    ++t.count;
    all += e.ms;
  }
  std::vector<std::pair<std::string, Total>> sorted(byOp.begin(), byOp.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
  std::printf("by op type:\n  %10s %6s %6s %9s  %s\n", "ms", "%", "count", "GFLOP/s", "op");
  for (const auto& [op, t] : sorted) {
    char gflops[32] = "-";
    if (t.flops > 0 && t.ms > 0) std::snprintf(gflops, sizeof gflops, "%.2f", t.flops / (t.ms / 1e3) / 1e9);
    std::printf("  %10.3f %5.1f%% %6d %9s  %s\n", t.ms, all > 0 ? 100 * t.ms / all : 0.0, t.count, gflops, op.c_str());
  }
}

}  // namespace

int benchCommand(ArgReader& args) {
  const BenchOptions o = parseBenchOptions(args);
  std::shared_ptr<Graph> graph;
  check(loadOnnxModel(o.model, &graph));
  const std::map<std::string, Shape> shapes = inputShapes(*graph, o);
  std::unique_ptr<Session> session;
  check(Session::create(graph, o.choice.sessionOptions(), &session));
  check(session->resize(shapes));  // first: it refuses shapes past the limits before inputs are made
  // One input set per shape of --shape-cycle (just one without it), made before timing.
  std::vector<std::map<std::string, Tensor>> inputSets(std::max<size_t>(1, o.cycleShapes.size()));
  for (size_t k = 0; k < inputSets.size(); ++k) {
    uint32_t seed = 1;
    for (const ValueInfo& v : graph->inputs) {
      const DataType dtype = v.dtype == DataType::kUnknown ? DataType::kF32 : v.dtype;
      const Shape& shape = v.name == o.cycleInput ? o.cycleShapes[k] : shapes.at(v.name);
      inputSets[k][v.name] = randomInput(dtype, shape, seed++);
    }
  }
  std::map<std::string, Tensor> outputs;
  const int warmup = o.cycleShapes.empty() ? o.warmup : std::max<int>(o.warmup, static_cast<int>(inputSets.size()));
  for (int i = 0; i < warmup; ++i) check(session->run(inputSets[i % inputSets.size()], &outputs));
  check(session->setProfiling(o.profile));
  std::vector<double> times;
  ProfileMedians profiles;  // of the runs at the last run's inputs
  for (int i = 0; i < o.runs; ++i) {
    const auto& inputs = inputSets[i % inputSets.size()];
    const auto start = std::chrono::steady_clock::now();
    check(session->run(inputs, &outputs));
    times.push_back(msSince(start));
    if (o.profile && i % inputSets.size() == (o.runs - 1) % inputSets.size()) profiles.add(session->profile());
  }
  int profileRuns = 0;
  const std::vector<Session::ProfileEntry> steps = profiles.medians(&profileRuns);

  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  const double mean = std::accumulate(times.begin(), times.end(), 0.0) / n;
  const BackendType backend = session->backends().front();
  const std::string device = session->deviceName(backend);

  if (o.json) {
    std::printf("{\"model\": %s, \"backend\": %s, \"device\": %s, \"threads\": %d, "
                "\"precision\": %s, \"runs\": %d, \"median_ms\": %s, \"min_ms\": %s, "
                "\"max_ms\": %s, \"mean_ms\": %s",
                jsonString(o.model).c_str(), jsonString(backendTypeName(backend)).c_str(),
                jsonString(device).c_str(), o.choice.threads,
                jsonString(precisionName(o.choice.precision)).c_str(), o.runs,
                jsonNumber(median).c_str(), jsonNumber(sorted.front()).c_str(),
                jsonNumber(sorted.back()).c_str(), jsonNumber(mean).c_str());
    const PlacementReport& r = session->report();
    std::printf(", \"planned_peak_bytes\": %zu, \"intermediate_bytes\": %zu", r.plannedPeakBytes,
                r.intermediateBytes);
    const Session::PlanCacheStats pc = session->planCache();
    std::printf(", \"plans_made\": %lld, \"plans_reused\": %lld, \"plans_kept\": %d, \"plans_kept_bytes\": %llu"
                ", \"weight_packings\": %llu, \"packed_weight_bytes\": %llu",
                static_cast<long long>(pc.plansMade), static_cast<long long>(pc.plansReused), pc.kept,
                static_cast<unsigned long long>(pc.keptBytes), static_cast<unsigned long long>(pc.weightPackings),
                static_cast<unsigned long long>(pc.packedWeightBytes));
    if (o.profile) {
      std::printf(", \"profile_runs\": %d, \"dispatches_per_run\": %lld, \"profile\": [", profileRuns,
                  static_cast<long long>(dispatchesPerRun(steps)));
      for (size_t i = 0; i < steps.size(); ++i) {
        const auto& e = steps[i];
        std::printf("%s{\"step\": %s, \"op\": %s, \"backend\": %s, \"ms\": %s, "
                    "\"device_time\": %s, \"flops\": %s, \"bytes\": %s, \"dispatches\": %s}",
                    i ? ", " : "", jsonString(e.step).c_str(), jsonString(e.opType).c_str(),
                    jsonString(backendTypeName(e.backend)).c_str(), jsonNumber(e.ms).c_str(),
                    e.deviceTime ? "true" : "false", jsonNumber(e.work.flops).c_str(),
                    jsonNumber(e.work.bytes).c_str(),
                    e.dispatches >= 0 ? std::to_string(e.dispatches).c_str() : "null");
      }
      std::printf("]");
    }
    std::printf("}\n");
    return 0;
  }
  std::printf("model: %s\nbackend: %s (%s), precision %s, %d threads\n", o.model.c_str(),
              backendTypeName(backend), device.c_str(), precisionName(o.choice.precision),
              o.choice.threads);
  std::printf("%d runs (%d warm-up): median %.3f ms, min %.3f ms, max %.3f ms, mean %.3f ms\n",
              o.runs, warmup, median, sorted.front(), sorted.back(), mean);
  const PlacementReport& r = session->report();
  if (o.plan) std::printf("%s", r.toString().c_str());
  else
    std::printf("memory: planned peak %.2f MiB for %.2f MiB of intermediate tensors\n",
                r.plannedPeakBytes / 1048576.0, r.intermediateBytes / 1048576.0);
  const Session::PlanCacheStats pc = session->planCache();
  std::printf("plans: %lld made, %lld reused; %d kept, holding %.2f MiB; weights packed once for all plans: "
              "%llu packings, %.2f MiB\n",
              static_cast<long long>(pc.plansMade), static_cast<long long>(pc.plansReused), pc.kept,
              pc.keptBytes / 1048576.0, static_cast<unsigned long long>(pc.weightPackings),
              pc.packedWeightBytes / 1048576.0);
  if (o.profile) printProfile(steps, profileRuns);
  return 0;
}

}  // namespace cli
}  // namespace tessera
