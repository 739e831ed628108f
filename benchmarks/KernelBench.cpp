#include "KernelBench.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <vector>

#include "BenchOptions.hpp"
#include "MachinePeak.hpp"
#include "MemoryBandwidth.hpp"

namespace tessera {
namespace bench {
namespace {

Tensor randomTensor(const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::hostAllocate(shape, DataType::kF32);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (int64_t i = 0; i < t.elementCount(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

double fp32Bytes(const Shape& s) { return 4.0 * double(elementCount(s)); }

Status makeSession(const KernelCase& c, std::unique_ptr<Session>* out) {
  GraphBuilder b;
  std::vector<std::string> inputs = {b.input("x", DataType::kF32, c.input)};
  for (size_t i = 0; i < c.constants.size(); ++i)
    inputs.push_back(b.constant("w" + std::to_string(i), randomTensor(c.constants[i], 2 + uint32_t(i))));
  b.output(b.op1(c.opType, inputs, c.attrs));
  std::shared_ptr<Graph> g;
  TESSERA_RETURN_IF_ERROR(b.build(&g));
  SessionOptions o;
  o.backends = {BackendType::kCPU};
  o.threads = benchThreads();
  return Session::create(g, o, out);
}

// The op's own step in the last (profiled) run: the kernel alone, without the layout
// conversions and the output copy that Session::run also does.
double opStepSeconds(const Session& s, const std::string& opType) {
  for (const auto& e : s.profile())
    if (e.opType == opType) return e.ms / 1e3;
  return 0;
}

double median(std::vector<double>* v) {
  if (v->empty()) return 0;
  std::nth_element(v->begin(), v->begin() + v->size() / 2, v->end());
  return (*v)[v->size() / 2];
}

void fail(benchmark::State& state, const std::string& why) {
  state.SkipWithError(why.c_str());
  markFailed();
}

void runKernel(benchmark::State& state, const KernelCase& c) {
  using Clock = std::chrono::steady_clock;
  const int threads = benchThreads();
  // What the user hands over and gets back, fp32 NCHW: NC4HW4 padding is not counted.
  double bytes = fp32Bytes(c.input) + fp32Bytes(c.output);
  for (const Shape& w : c.constants) bytes += fp32Bytes(w);
  // Main-memory bandwidth, as in a roofline. Between runs the benchmark's few MB stay in the
  // last-level cache, so a kernel can beat this bound; at cache bandwidth, though, these
  // kernels would be compute-bound (docs/PERFORMANCE.md). Measured before the Session
  // exists, so its pool's threads are not around to compete.
  const double bw = c.memoryBound ? mainMemoryBandwidth(threads).best() : 0;

  std::unique_ptr<Session> s;
  Status st = makeSession(c, &s);
  const std::map<std::string, Tensor> feeds = {{"x", randomTensor(c.input, 1)}};
  std::map<std::string, Tensor> outs;
  // The first run plans (shape inference, weight packing, memory plan) and warms up.
  if (st.isOk()) st = s->setProfiling(true);
  if (st.isOk()) st = s->run(feeds, &outs);
  if (!st.isOk()) return fail(state, st.message());
  if (outs.begin()->second.shape() != c.output)
    return fail(state, "output is " + shapeToString(outs.begin()->second.shape()) + ", expected " +
                           shapeToString(c.output));

  // Profiling stays on: two clock reads per step, noise next to a kernel of 0.1 ms or more.
  std::vector<double> runSeconds, opSeconds;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    st = s->run(feeds, &outs);
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!st.isOk()) return fail(state, st.message());
    state.SetIterationTime(dt);
    runSeconds.push_back(dt);
    opSeconds.push_back(opStepSeconds(*s, c.opType));
  }
  // The counters use the median iteration: on a shared machine a few slow iterations (another
  // job on the cores) move a mean far more than a median.
  const double runMs = median(&runSeconds) * 1e3, opMs = median(&opSeconds) * 1e3;

  const MachinePeak peak = machinePeak(threads);
  state.counters["GFLOP/s"] = c.flops / (runMs * 1e6);
  state.counters["op_ms"] = opMs;
  if (peak.ghz > 0) {
    state.counters["%peak"] = 100 * c.flops / (runMs * 1e6) / peak.peakGflops();
    state.counters["op_%peak"] = 100 * c.flops / (opMs * 1e6) / peak.peakGflops();
  }
  if (c.memoryBound) {
    const double boundMs = bytes / (bw * 1e9) * 1e3;
    state.counters["MB"] = bytes / 1e6;
    state.counters["bw_GB/s"] = bw;
    state.counters["bound_ms"] = boundMs;
    state.counters["x_bound"] = runMs / boundMs;
    state.counters["op_x_bound"] = opMs / boundMs;
  }
}

}  // namespace

std::vector<KernelCase>& pendingKernels() {
  static std::vector<KernelCase> cases;
  return cases;
}

bool addKernel(const KernelCase& c) {
  pendingKernels().push_back(c);
  return true;
}

void registerKernels() {
  std::vector<KernelCase>& cases = pendingKernels();
  std::stable_partition(cases.begin(), cases.end(), [](const KernelCase& c) { return !c.memoryBound; });
  for (const KernelCase& c : cases)
    benchmark::RegisterBenchmark(c.name.c_str(), [c](benchmark::State& state) { runKernel(state, c); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
}

double convFlops(int64_t n, int64_t cout, int64_t hout, int64_t wout, int64_t cinPerGroup,
                 int64_t kh, int64_t kw) {
  return 2.0 * double(n) * double(cout) * double(hout) * double(wout) * double(cinPerGroup) * double(kh) *
         double(kw);
}

}  // namespace bench
}  // namespace tessera
