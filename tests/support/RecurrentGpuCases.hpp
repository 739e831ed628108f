// Shared by tests/vulkan/VulkanRecurrent.cpp and tests/opencl/OpenClRecurrent.cpp: RNN, GRU
// and LSTM cases with awkward sizes (hidden 5, 13 and 70 > one 64-wide work-group; input 3
// and 7; batch 1 and 3; seq 1 and 6), every direction, both layouts, unequal sequence_lens
// (0 included), clip, linear_before_reset, input_forget, peepholes, non-default activations
// with alpha/beta, constant and run-time weights, and optional outputs left out (any of Y,
// Y_h, Y_c). `expectGpuMatchesCpu` runs a case on the CPU and on a GPU backend: every node
// must run on the GPU, every output it asked for must match.
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {

struct RecurrentGpuCase {
  std::string op = "LSTM";
  std::string direction = "forward";
  int64_t batch = 1, seq = 1, input = 3, hidden = 5, layout = 0;
  bool bias = false, initial = false, peephole = false, constantWeights = false;
  std::vector<int64_t> lens;  // sequence_lens, when not empty
  bool lensI64 = false;
  float clip = 0.f;  // 0: none
  float rRange = 0.6f;  // R uniform in [-rRange, rRange] (small for long sequences: no chaos)
  int64_t linearBeforeReset = 0, inputForget = 0;
  std::vector<std::string> activations;  // empty: the defaults
  std::vector<float> alphas, betas;
  std::vector<bool> outputs = {true, true, true};  // Y, Y_h (, Y_c): which the node names

  int D() const { return direction == "bidirectional" ? 2 : 1; }
  int G() const { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }
  bool lstm() const { return op == "LSTM"; }
  int numOutputs() const { return lstm() ? 3 : 2; }
  std::string describe() const {
    std::string s = op + " " + direction + " batch" + std::to_string(batch) + " seq" + std::to_string(seq) + " input" +
                    std::to_string(input) + " hidden" + std::to_string(hidden) + " layout" + std::to_string(layout);
    if (bias) s += " B";
    if (initial) s += " initial";
    if (peephole) s += " P";
    if (!lens.empty()) s += lensI64 ? " lens64" : " lens";
    if (clip > 0.f) s += " clip";
    if (linearBeforeReset) s += " lbr";
    if (inputForget) s += " input_forget";
    if (!activations.empty()) s += " " + activations[0] + "...";
    if (constantWeights) s += " constant";
    s += " outputs";
    for (int i = 0; i < numOutputs(); ++i) s += outputs[i] ? "1" : "0";
    return s;
  }
};

inline Tensor omittedInput() { return Tensor(Shape{}, DataType::kUnknown); }

// The node's inputs (omittedInput() where absent) and which are initializers.
inline std::vector<Tensor> recurrentInputs(const RecurrentGpuCase& c, std::vector<bool>* constant) {
  const int64_t D = c.D(), GH = c.G() * c.hidden;
  const Shape state = c.layout ? Shape{c.batch, D, c.hidden} : Shape{D, c.batch, c.hidden};
  const uint32_t seed = static_cast<uint32_t>(c.batch * 131 + c.seq * 17 + c.hidden * 7 + c.input);
  std::vector<Tensor> in = {
      randomTensor(c.layout ? Shape{c.batch, c.seq, c.input} : Shape{c.seq, c.batch, c.input}, seed, -1.5f, 1.5f),
      randomTensor({D, GH, c.input}, seed + 1, -0.6f, 0.6f), randomTensor({D, GH, c.hidden}, seed + 2, -c.rRange, c.rRange),
      c.bias ? randomTensor({D, 2 * GH}, seed + 3, -0.5f, 0.5f) : omittedInput(), omittedInput(),
      c.initial ? randomTensor(state, seed + 4) : omittedInput()};
  if (!c.lens.empty()) {
    in[4] = tensorFromInts({c.batch}, c.lens);  // int64
    if (!c.lensI64) {
      Tensor t = Tensor::hostAllocate({c.batch}, DataType::kI32);
      for (int64_t b = 0; b < c.batch; ++b) t.data<int32_t>()[b] = static_cast<int32_t>(c.lens[b]);
      in[4] = t;
    }
  }
  if (c.lstm()) {
    in.push_back(c.initial ? randomTensor(state, seed + 5) : omittedInput());
    in.push_back(c.peephole ? randomTensor({D, 3 * c.hidden}, seed + 6, -0.5f, 0.5f) : omittedInput());
  }
  while (!in.empty() && in.back().dtype() == DataType::kUnknown) in.pop_back();
  constant->assign(in.size(), false);
  if (c.constantWeights)
    for (size_t i = 1; i < in.size() && i < 4; ++i) (*constant)[i] = true;
  return in;
}

inline Attributes recurrentAttributes(const RecurrentGpuCase& c) {
  Attributes a;
  a.setInt("hidden_size", c.hidden);
  a.setString("direction", c.direction);
  if (c.layout) a.setInt("layout", c.layout);
  if (c.clip > 0.f) a.setFloat("clip", c.clip);
  if (c.op == "GRU") a.setInt("linear_before_reset", c.linearBeforeReset);
  if (c.lstm()) a.setInt("input_forget", c.inputForget);
  if (!c.activations.empty()) {
    Attribute names;
    names.kind = Attribute::Kind::kStrings;
    names.strings = c.activations;
    a.set("activations", names);
  }
  if (!c.alphas.empty()) a.setFloats("activation_alpha", c.alphas);
  if (!c.betas.empty()) a.setFloats("activation_beta", c.betas);
  return a;
}

// Runs the case's one-node graph on `backend`; outputs[i] is empty where the node omits it.
inline OpRun runRecurrentCase(const RecurrentGpuCase& c, BackendType backend, Precision precision = Precision::kFP32) {
  OpRun r;
  std::vector<bool> constant;
  const std::vector<Tensor> inputs = recurrentInputs(c, &constant);
  auto g = std::make_shared<Graph>();
  Node n;
  n.opType = c.op;
  n.name = "rec";
  n.opset = 14;
  n.attrs = recurrentAttributes(c);
  std::map<std::string, Tensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() == DataType::kUnknown) {
      n.inputs.push_back("");
      continue;
    }
    const std::string name = "in" + std::to_string(i);
    n.inputs.push_back(name);
    Tensor t = inputs[i];
    t.setName(name);
    if (constant[i]) {
      t.setConstant(true);
      g->initializers[name] = t;
    } else {
      ValueInfo v;
      v.name = name;
      v.dtype = t.dtype();
      v.dims = t.shape();
      v.hasShape = true;
      g->inputs.push_back(v);
      feeds[name] = t;
    }
  }
  for (int i = 0; i < c.numOutputs(); ++i) {
    n.outputs.push_back(c.outputs[i] ? "out" + std::to_string(i) : "");
    if (!c.outputs[i]) continue;
    ValueInfo v;
    v.name = n.outputs.back();
    g->outputs.push_back(v);
  }
  while (!n.outputs.empty() && n.outputs.back().empty()) n.outputs.pop_back();
  g->nodes.push_back(n);
  r.status = g->validate();
  if (!r.status.isOk()) return r;
  SessionOptions o;
  o.backends = {backend};
  o.threads = 2;
  o.precision = precision;
  std::unique_ptr<Session> s;
  r.status = Session::create(g, o, &s);
  if (!r.status.isOk()) return r;
  std::map<std::string, Tensor> outs;
  r.status = s->run(feeds, &outs);
  r.report = s->report();
  if (!r.status.isOk()) return r;
  for (int i = 0; i < c.numOutputs(); ++i) r.outputs.push_back(c.outputs[i] ? outs["out" + std::to_string(i)] : omittedInput());
  return r;
}

inline void expectGpuMatchesCpu(const RecurrentGpuCase& c, BackendType gpu, Precision precision = Precision::kFP32,
                                double rtol = 1e-4, double atol = 1e-5) {
  const std::string what = c.describe() + (precision == Precision::kFP16 ? " fp16" : "");
  OpRun cpu = runRecurrentCase(c, BackendType::kCPU);
  ASSERT_TRUE(cpu.status.isOk()) << what << " on CPU: " << cpu.status.message();
  OpRun dev = runRecurrentCase(c, gpu, precision);
  ASSERT_TRUE(dev.status.isOk()) << what << " on " << backendTypeName(gpu) << ": " << dev.status.message();
  ASSERT_FALSE(dev.report.nodes.empty()) << what;
  for (const auto& n : dev.report.nodes) {
    ASSERT_EQ(n.backend, gpu) << what << ": " << n.node << " ran on " << backendTypeName(n.backend);
    ASSERT_FALSE(n.folded) << what << ": " << n.node << " was folded";
  }
  ASSERT_EQ(cpu.outputs.size(), dev.outputs.size()) << what;
  for (size_t i = 0; i < cpu.outputs.size(); ++i)
    if (c.outputs[i]) expectClose(dev.outputs[i], cpu.outputs[i], rtol, atol, what + " output " + std::to_string(i));
}

// The sweep both GPU suites run: each op with every direction, both layouts, the optional
// inputs and attributes, and some outputs left out.
inline std::vector<RecurrentGpuCase> recurrentGpuSweep() {
  std::vector<RecurrentGpuCase> cases;
  for (const std::string op : {"RNN", "GRU", "LSTM"}) {
    RecurrentGpuCase c;
    c.op = op;
    // The smallest: one step, one entry, reverse, no bias, Y only.
    c.direction = "reverse";
    c.outputs = {true, false, false};
    cases.push_back(c);
    // Forward, odd sizes, bias and initial states, six steps, only Y_h (and Y_c).
    c = RecurrentGpuCase();
    c.op = op;
    c.batch = 3, c.seq = 6, c.input = 7, c.hidden = 13, c.bias = true, c.initial = true;
    c.outputs = {false, true, true};
    cases.push_back(c);
    // Bidirectional, batch-major, unequal lengths (one 0), clip, constant weights, every output.
    c.direction = "bidirectional", c.layout = 1, c.input = 3, c.hidden = 5, c.clip = 0.9f, c.constantWeights = true;
    c.lens = {4, 6, 0};
    c.outputs = {true, true, true};
    cases.push_back(c);
    // Reverse with lengths (int64), sequence-major, hidden past one work-group's 64 units.
    c = RecurrentGpuCase();
    c.op = op;
    c.direction = "reverse", c.batch = 3, c.seq = 4, c.input = 7, c.hidden = 70, c.bias = true, c.initial = true;
    c.lens = {2, 4, 3};
    c.lensI64 = true;
    cases.push_back(c);
  }
  // Activations with alpha / beta, one list per direction.
  RecurrentGpuCase a;
  a.op = "RNN", a.direction = "bidirectional", a.batch = 3, a.seq = 6, a.hidden = 13, a.bias = true;
  a.activations = {"LeakyRelu", "ScaledTanh"};
  a.alphas = {0.3f, 0.8f};
  a.betas = {1.3f};
  cases.push_back(a);
  a.activations = {"Relu", "Softsign"};
  a.alphas.clear(), a.betas.clear();
  cases.push_back(a);
  a.op = "GRU", a.activations = {"HardSigmoid", "Elu", "Sigmoid", "Softplus"};
  a.alphas = {0.3f, 0.7f}, a.betas = {0.45f};
  cases.push_back(a);
  a.op = "LSTM", a.activations = {"Sigmoid", "Affine", "ThresholdedRelu"};  // one list for both directions
  a.alphas = {0.9f, 0.2f}, a.betas = {0.1f};
  cases.push_back(a);
  // GRU linear_before_reset, both directions, lengths, clip.
  for (int64_t lbr : {0, 1}) {
    RecurrentGpuCase g;
    g.op = "GRU", g.direction = "bidirectional", g.batch = 3, g.seq = 6, g.input = 7, g.hidden = 13, g.bias = true;
    g.initial = true, g.linearBeforeReset = lbr, g.lens = {6, 1, 3}, g.clip = 1.1f;
    cases.push_back(g);
    g.bias = false, g.layout = 1, g.lens.clear(), g.hidden = 70, g.clip = 0.f;
    cases.push_back(g);
  }
  // LSTM peepholes and input_forget, both directions, lengths; Y_c alone.
  RecurrentGpuCase l;
  l.op = "LSTM", l.direction = "bidirectional", l.batch = 3, l.seq = 6, l.input = 7, l.hidden = 13, l.bias = true;
  l.initial = true, l.peephole = true, l.lens = {3, 6, 5};
  cases.push_back(l);
  l.inputForget = 1, l.layout = 1, l.clip = 0.7f, l.outputs = {false, false, true};
  cases.push_back(l);
  return cases;
}

// Long sequences with 3 hidden units per invocation: more loop iterations than lavapipe lets
// one invocation run, so Vulkan splits the steps over several dispatches (LSTM 3, GRU 2),
// carrying the state; one entry's length ends inside a later dispatch. R is small, so the
// recurrence contracts: with R as in the sweep, 130 units over 90 steps are chaotic and the
// backends' last-bit rounding differences grow to O(1).
inline std::vector<RecurrentGpuCase> recurrentLongSweep() {
  std::vector<RecurrentGpuCase> cases;
  for (const std::string op : {"RNN", "GRU", "LSTM"}) {
    RecurrentGpuCase c;
    c.op = op, c.direction = "bidirectional", c.batch = 2, c.seq = op == "RNN" ? 170 : 90, c.input = 5;
    c.hidden = 130, c.bias = true, c.initial = true, c.lens = {c.seq, 57};
    c.rRange = 0.08f;  // contracting: float rounding differences decay instead of growing
    cases.push_back(c);
  }
  return cases;
}

// A constant sequence_lens past seq leaves `op` to the CPU, whose error names the input.
inline void expectConstantLengthsOutOfRangeFail(const std::string& op, BackendType gpu) {
  RecurrentGpuCase c;
  c.op = op, c.batch = 2, c.seq = 3, c.lens = {4, 1};
  std::vector<bool> constant;
  std::vector<Tensor> in = recurrentInputs(c, &constant);
  constant[4] = true;
  OpRun r = runOp(op, in, recurrentAttributes(c), 2, gpu, constant, 14);
  EXPECT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("sequence_lens"), std::string::npos) << r.status.message();
}

// Past the GPU kernels' 1024 hidden units (their shared arrays) the node runs on the CPU,
// correctly.
inline void expectHiddenPastLimitOnCpu(BackendType gpu) {
  RecurrentGpuCase c;
  c.op = "RNN", c.input = 1, c.hidden = 1025;
  OpRun cpu = runRecurrentCase(c, BackendType::kCPU);
  OpRun dev = runRecurrentCase(c, gpu);
  ASSERT_TRUE(dev.status.isOk()) << dev.status.message();
  ASSERT_EQ(dev.report.nodes.size(), 1u);
  EXPECT_EQ(dev.report.nodes[0].backend, BackendType::kCPU);
  expectClose(dev.outputs[0], cpu.outputs[0], 1e-5, 1e-6, "RNN hidden 1025");
}

}  // namespace test
}  // namespace tessera
