// RNN, GRU and LSTM against a naive reference (plain loops, double sums, one batch entry and
// one step at a time): every direction, both layouts, batch 1 and 3, hidden and input sizes
// that are not multiples of 4, one step and six, with and without B, initial states,
// peepholes and sequence_lens (shorter than the sequence, and 0), clip, input_forget,
// linear_before_reset, every activation ONNX lists, weights constant (packed at resize) and
// fed at run time. Bad shapes and attributes fail naming the node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

struct Act {
  std::string name;
  double alpha = 0, beta = 0;
};

double applyAct(const Act& a, double x) {
  const std::string& n = a.name;
  if (n == "Relu") return std::max(0.0, x);
  if (n == "Tanh") return std::tanh(x);
  if (n == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (n == "Affine") return a.alpha * x + a.beta;
  if (n == "LeakyRelu") return x >= 0 ? x : a.alpha * x;
  if (n == "ThresholdedRelu") return x > a.alpha ? x : 0.0;
  if (n == "ScaledTanh") return a.alpha * std::tanh(a.beta * x);
  if (n == "HardSigmoid") return std::min(1.0, std::max(0.0, a.alpha * x + a.beta));
  if (n == "Elu") return x >= 0 ? x : a.alpha * (std::exp(x) - 1.0);
  if (n == "Softsign") return x / (1.0 + std::fabs(x));
  if (n == "Softplus") return std::log1p(std::exp(x));
  ADD_FAILURE() << "no reference for " << n;
  return 0;
}

bool takesAlpha(const std::string& n) {
  return n == "Affine" || n == "LeakyRelu" || n == "ThresholdedRelu" || n == "ScaledTanh" || n == "HardSigmoid" ||
         n == "Elu";
}
bool takesBeta(const std::string& n) { return n == "Affine" || n == "ScaledTanh" || n == "HardSigmoid"; }

struct RnnCase {
  std::string op = "LSTM";
  std::string direction = "forward";
  int64_t batch = 1, seq = 1, input = 3, hidden = 5, layout = 0;
  bool bias = false, initial = false, peephole = false, lengths = false;
  std::vector<int64_t> lens;  // with `lengths`
  bool clip = false, linearBeforeReset = false, inputForget = false;
  std::vector<Act> acts;  // empty: the defaults
  bool constantWeights = false;
  int opset = 14;

  int D() const { return direction == "bidirectional" ? 2 : 1; }
  int G() const { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }
  int functions() const { return op == "RNN" ? 1 : op == "GRU" ? 2 : 3; }
  bool lstm() const { return op == "LSTM"; }
  Shape xShape() const { return layout ? Shape{batch, seq, input} : Shape{seq, batch, input}; }
  Shape stateShape() const { return layout ? Shape{batch, D(), hidden} : Shape{D(), batch, hidden}; }
  Shape yShape() const { return layout ? Shape{batch, seq, D(), hidden} : Shape{seq, D(), batch, hidden}; }
  int64_t xAt(int64_t t, int64_t b, int64_t k) const { return ((layout ? b * seq + t : t * batch + b)) * input + k; }
  int64_t stateAt(int64_t d, int64_t b, int64_t j) const {
    return (layout ? b * D() + d : d * batch + b) * hidden + j;
  }
  int64_t yAt(int64_t t, int64_t d, int64_t b, int64_t j) const {
    return (layout ? (b * seq + t) * D() + d : (t * D() + d) * batch + b) * hidden + j;
  }

  std::string describe() const {
    std::string s = op + " " + direction + " batch" + std::to_string(batch) + " seq" + std::to_string(seq) +
                    " input" + std::to_string(input) + " hidden" + std::to_string(hidden) + " layout" +
                    std::to_string(layout) + " opset" + std::to_string(opset);
    if (bias) s += " B";
    if (initial) s += " initial";
    if (peephole) s += " P";
    if (lengths) {
      s += " lens";
      for (int64_t l : lens) s += " " + std::to_string(l);
    }
    if (clip) s += " clip";
    if (linearBeforeReset) s += " linear_before_reset";
    if (inputForget) s += " input_forget";
    for (const Act& a : acts) s += " " + a.name;
    if (constantWeights) s += " constant";
    return s;
  }
};

constexpr double kClip = 0.7;

Tensor none() { return Tensor(Shape{}, DataType::kUnknown); }  // an omitted input

struct RnnInputs {
  Tensor x, w, r, b = none(), lens = none(), h0 = none(), c0 = none(), p = none();
};

RnnInputs makeInputs(const RnnCase& c, uint32_t seed) {
  RnnInputs in;
  const int64_t D = c.D(), GH = c.G() * c.hidden;
  in.x = randomTensor(c.xShape(), seed);
  in.w = randomTensor({D, GH, c.input}, seed + 1, -0.6f, 0.6f);
  in.r = randomTensor({D, GH, c.hidden}, seed + 2, -0.6f, 0.6f);
  if (c.bias) in.b = randomTensor({D, 2 * GH}, seed + 3);
  if (c.lengths) {
    in.lens = Tensor::hostAllocate({c.batch}, DataType::kI32);
    for (int64_t i = 0; i < c.batch; ++i) in.lens.data<int32_t>()[i] = static_cast<int32_t>(c.lens[i]);
  }
  if (c.initial) {
    in.h0 = randomTensor(c.stateShape(), seed + 4);
    if (c.lstm()) in.c0 = randomTensor(c.stateShape(), seed + 5);
  }
  if (c.peephole) in.p = randomTensor({D, 3 * c.hidden}, seed + 6);
  return in;
}

const Act& actOf(const RnnCase& c, const std::vector<Act>& acts, int d, int k) {
  return acts[static_cast<size_t>(d * c.functions() + k)];
}

// The reference: every output, as double-precision loops write them.
std::vector<Tensor> reference(const RnnCase& c, const RnnInputs& in) {
  const int64_t D = c.D(), H = c.hidden, G = c.G(), GH = G * H, I = c.input;
  std::vector<Act> acts = c.acts;
  if (acts.empty())
    for (int d = 0; d < D; ++d) {
      if (c.op == "RNN") acts.push_back({"Tanh"});
      else if (c.op == "GRU") acts.insert(acts.end(), {{"Sigmoid"}, {"Tanh"}});
      else acts.insert(acts.end(), {{"Sigmoid"}, {"Tanh"}, {"Tanh"}});
    }
  Tensor y = Tensor::hostAllocate(c.yShape(), DataType::kF32);
  Tensor yh = Tensor::hostAllocate(c.stateShape(), DataType::kF32);
  Tensor yc = Tensor::hostAllocate(c.stateShape(), DataType::kF32);
  std::fill(y.data<float>(), y.data<float>() + y.elementCount(), 0.f);
  const float* X = in.x.data<float>();
  auto clip = [&](double v) { return c.clip ? std::min(kClip, std::max(-kClip, v)) : v; };
  for (int64_t d = 0; d < D; ++d) {
    const float* W = in.w.data<float>() + d * GH * I;
    const float* R = in.r.data<float>() + d * GH * H;
    const float* Wb = c.bias ? in.b.data<float>() + d * 2 * GH : nullptr;
    const float* Rb = Wb ? Wb + GH : nullptr;
    const float* P = c.peephole ? in.p.data<float>() + d * 3 * H : nullptr;
    const bool reverse = c.direction == "reverse" || (c.direction == "bidirectional" && d == 1);
    const Act& f = actOf(c, acts, int(d), 0);
    for (int64_t b = 0; b < c.batch; ++b) {
      const int64_t len = c.lengths ? c.lens[b] : c.seq;
      std::vector<double> h(H, 0.0), cell(H, 0.0);
      for (int64_t j = 0; j < H; ++j) {
        if (c.initial) h[j] = in.h0.data<float>()[c.stateAt(d, b, j)];
        if (c.initial && c.lstm()) cell[j] = in.c0.data<float>()[c.stateAt(d, b, j)];
      }
      for (int64_t k = 0; k < len; ++k) {
        const int64_t t = reverse ? len - 1 - k : k;
        // xw[g*H+j] = x W^T + Wb, hr = H R^T + Rb.
        std::vector<double> xw(GH), hr(GH);
        for (int64_t n = 0; n < GH; ++n) {
          double sx = Wb ? Wb[n] : 0.0, sh = Rb ? Rb[n] : 0.0;
          for (int64_t i = 0; i < I; ++i) sx += double(X[c.xAt(t, b, i)]) * W[n * I + i];
          for (int64_t i = 0; i < H; ++i) sh += h[i] * R[n * H + i];
          xw[n] = sx;
          hr[n] = sh;
        }
        std::vector<double> next(H);
        if (c.op == "RNN") {
          for (int64_t j = 0; j < H; ++j) next[j] = applyAct(f, clip(xw[j] + hr[j]));
        } else if (c.op == "GRU") {
          const Act& g = actOf(c, acts, int(d), 1);
          std::vector<double> z(H), r(H);
          for (int64_t j = 0; j < H; ++j) {
            z[j] = applyAct(f, clip(xw[j] + hr[j]));
            r[j] = applyAct(f, clip(xw[H + j] + hr[H + j]));
          }
          for (int64_t j = 0; j < H; ++j) {
            double pre;
            if (c.linearBeforeReset) {
              pre = xw[2 * H + j] + r[j] * hr[2 * H + j];
            } else {
              double s = Rb ? Rb[2 * H + j] : 0.0;
              for (int64_t i = 0; i < H; ++i) s += r[i] * h[i] * R[(2 * H + j) * H + i];
              pre = xw[2 * H + j] + s;
            }
            const double hc = applyAct(g, clip(pre));
            next[j] = (1 - z[j]) * hc + z[j] * h[j];
          }
        } else {
          const Act& g = actOf(c, acts, int(d), 1);
          const Act& hAct = actOf(c, acts, int(d), 2);
          for (int64_t j = 0; j < H; ++j) {
            const double gi = xw[j] + hr[j] + (P ? P[j] * cell[j] : 0.0);
            const double gf = xw[2 * H + j] + hr[2 * H + j] + (P ? P[2 * H + j] * cell[j] : 0.0);
            const double i = applyAct(f, clip(gi));
            const double fg = c.inputForget ? 1.0 - i : applyAct(f, clip(gf));
            const double cc = applyAct(g, clip(xw[3 * H + j] + hr[3 * H + j]));
            cell[j] = fg * cell[j] + i * cc;
            const double o = applyAct(f, clip(xw[H + j] + hr[H + j] + (P ? P[H + j] * cell[j] : 0.0)));
            next[j] = o * applyAct(hAct, cell[j]);
          }
        }
        h = next;
        for (int64_t j = 0; j < H; ++j) y.data<float>()[c.yAt(t, d, b, j)] = static_cast<float>(h[j]);
      }
      for (int64_t j = 0; j < H; ++j) {
        yh.data<float>()[c.stateAt(d, b, j)] = len ? static_cast<float>(h[j]) : 0.f;
        yc.data<float>()[c.stateAt(d, b, j)] = len ? static_cast<float>(cell[j]) : 0.f;
      }
    }
  }
  if (c.lstm()) return {y, yh, yc};
  return {y, yh};
}

Attributes attrsOf(const RnnCase& c) {
  Attributes a;
  a.setString("direction", c.direction);
  a.setInt("hidden_size", c.hidden);
  if (c.opset >= 14) a.setInt("layout", c.layout);
  if (c.clip) a.setFloat("clip", static_cast<float>(kClip));
  if (c.op == "GRU") a.setInt("linear_before_reset", c.linearBeforeReset);
  if (c.lstm() && c.inputForget) a.setInt("input_forget", 1);
  if (!c.acts.empty()) {
    Attribute names;
    names.kind = Attribute::Kind::kStrings;
    std::vector<float> alphas, betas;
    for (const Act& x : c.acts) {
      names.strings.push_back(x.name);
      if (takesAlpha(x.name)) alphas.push_back(static_cast<float>(x.alpha));
      if (takesBeta(x.name)) betas.push_back(static_cast<float>(x.beta));
    }
    a.set("activations", names);
    if (!alphas.empty()) a.setFloats("activation_alpha", alphas);
    if (!betas.empty()) a.setFloats("activation_beta", betas);
  }
  return a;
}

OpRun runCase(const RnnCase& c, const RnnInputs& in) {
  std::vector<Tensor> inputs = {in.x, in.w, in.r, in.b, in.lens, in.h0};
  if (c.lstm()) {
    inputs.push_back(in.c0);
    inputs.push_back(in.p);
  }
  // Trailing omitted inputs are left out, as ONNX writes them.
  while (inputs.back().dtype() == DataType::kUnknown) inputs.pop_back();
  std::vector<bool> constant;
  if (c.constantWeights) constant = {false, true, true, true, false, false, false, true};
  return runOp(c.op, inputs, attrsOf(c), c.lstm() ? 3 : 2, BackendType::kCPU, constant, c.opset);
}

void check(const RnnCase& c, uint32_t seed) {
  const RnnInputs in = makeInputs(c, seed);
  OpRun r = runCase(c, in);
  ASSERT_TRUE(r.status.isOk()) << c.describe() << ": " << r.status.message();
  ASSERT_EQ(r.report.nodes.size(), 1u);
  EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU) << c.describe();
  const std::vector<Tensor> expected = reference(c, in);
  const char* names[] = {"Y", "Y_h", "Y_c"};
  for (size_t i = 0; i < expected.size(); ++i)
    expectClose(r.outputs[i], expected[i], 1e-4, 2e-5, std::string(names[i]) + " " + c.describe());
}

// Lengths for a batch: the full sequence, shorter ones and (every other case) 0.
std::vector<int64_t> lengthsFor(int64_t batch, int64_t seq, int variant) {
  std::vector<int64_t> out;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t pick = (b + variant) % 3;
    out.push_back(pick == 0 ? seq : pick == 1 ? std::max<int64_t>(seq - 2, 1) : (variant % 2 ? 0 : seq - 1));
  }
  return out;
}

TEST(RecurrentOp, SweepAgainstNaive) {
  uint32_t seed = 1;
  int variant = 0;
  for (const char* op : {"RNN", "GRU", "LSTM"})
    for (const char* dir : {"forward", "reverse", "bidirectional"})
      for (int64_t batch : {1, 3})
        for (int64_t layout : {0, 1})
          for (int64_t seq : {1, 6})
            for (bool constant : {false, true}) {
              const int v = variant++;
              RnnCase c;
              c.op = op;
              c.direction = dir;
              c.batch = batch;
              c.layout = layout;
              c.seq = seq;
              c.constantWeights = constant;
              c.hidden = v % 2 ? 5 : 7;
              c.input = (v / 2) % 2 ? 3 : 9;
              c.bias = v % 3 != 0;
              c.initial = v % 4 != 1;
              c.peephole = c.lstm() && v % 2 == 0;
              c.lengths = v % 5 != 2;
              if (c.lengths) c.lens = lengthsFor(batch, seq, v);
              c.linearBeforeReset = c.op == "GRU" && (v / 3) % 2;
              c.clip = v % 7 == 3;
              c.inputForget = c.lstm() && v % 11 == 4;
              check(c, seed);
              seed += 10;
            }
}

// Every activation ONNX lists, with alpha and beta given to some and left default for others.
TEST(RecurrentOp, ActivationLists) {
  const std::vector<Act> all = {{"Relu"},          {"Tanh"},     {"Sigmoid"},
                                {"Affine", 0.5, 0.1},      {"LeakyRelu", 0.2}, {"ThresholdedRelu", 0.1},
                                {"ScaledTanh", 1.5, 0.7},  {"HardSigmoid", 0.3, 0.4}, {"Elu", 0.8},
                                {"Softsign"},      {"Softplus"}};
  uint32_t seed = 5000;
  for (const char* op : {"RNN", "GRU", "LSTM"})
    for (const char* dir : {"forward", "bidirectional"})
      for (size_t first = 0; first < all.size(); ++first) {
        RnnCase c;
        c.op = op;
        c.direction = dir;
        c.batch = 3;
        c.seq = 4;
        c.hidden = 5;
        c.bias = true;
        c.initial = true;
        for (int i = 0; i < c.D() * c.functions(); ++i) c.acts.push_back(all[(first + 4 * size_t(i)) % all.size()]);
        check(c, seed);
        seed += 10;
      }
  // Names match case-insensitively; defaults fill alphas the list does not give.
  RnnCase c;
  c.op = "RNN";
  c.seq = 3;
  c.acts = {{"LeakyRelu", 0.01}};
  const RnnInputs in = makeInputs(c, 77);
  Attributes a = attrsOf(c);
  Attribute names;
  names.kind = Attribute::Kind::kStrings;
  names.strings = {"leakyrelu"};
  a.set("activations", names);
  a.setFloats("activation_alpha", {});
  OpRun r = runOp("RNN", {in.x, in.w, in.r}, a, 2, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectClose(r.outputs[1], reference(c, in)[1], 1e-4, 2e-5, "leakyrelu, default alpha");
}

// Opset 7 (no layout attribute) and bidirectional sharing one activation list.
TEST(RecurrentOp, Opset7AndSharedActivations) {
  RnnCase c;
  c.op = "GRU";
  c.direction = "bidirectional";
  c.batch = 3;
  c.seq = 5;
  c.hidden = 7;
  c.bias = true;
  c.opset = 7;
  check(c, 900);
  c.op = "LSTM";
  check(c, 910);

  c.acts = {{"HardSigmoid", 0.3, 0.4}, {"Softsign"}, {"Relu"}};
  const RnnInputs in = makeInputs(c, 920);
  Attributes a = attrsOf(c);
  Attribute names;
  names.kind = Attribute::Kind::kStrings;
  names.strings = {"HardSigmoid", "Softsign", "Relu"};
  a.set("activations", names);
  a.setFloats("activation_alpha", {0.3f});
  a.setFloats("activation_beta", {0.4f});
  OpRun r = runOp("LSTM", {in.x, in.w, in.r, in.b}, a, 3, BackendType::kCPU, {}, 7);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  c.acts.insert(c.acts.end(), {{"HardSigmoid", 0.3, 0.4}, {"Softsign"}, {"Relu"}});
  const std::vector<Tensor> expected = reference(c, in);
  for (size_t i = 0; i < 3; ++i) expectClose(r.outputs[i], expected[i], 1e-4, 2e-5, "shared list");
}

// Hidden and input sizes past the GEMM's K chunk (256) at batch 1: the one-row kernel
// accumulates over several chunks, and N ends in a partial panel.
TEST(RecurrentOp, LargeSizesAtBatchOne) {
  RnnCase c;
  c.op = "LSTM";
  c.direction = "bidirectional";
  c.seq = 3;
  c.input = 270;
  c.hidden = 301;
  c.bias = true;
  c.initial = true;
  c.peephole = true;
  c.constantWeights = true;
  check(c, 1200);
  c.op = "GRU";
  c.constantWeights = false;
  check(c, 1210);
}

// A step's product worth two threads: R split into two hidden slices of 36 and 34 units,
// each thread taking its slice's product and then those units' cells. Entries of the batch
// end at different steps (their state must carry over unchanged), and GRU without
// linear_before_reset waits for every slice's r before its h block. LSTM with peepholes and
// without.
TEST(RecurrentOp, HiddenSlicesOnTwoThreads) {
  uint32_t seed = 1300;
  int variant = 0;
  for (const char* op : {"RNN", "GRU", "LSTM"})
    for (const char* dir : {"forward", "reverse"})
      for (bool linear : {false, true}) {
        // `linear`: GRU's linear_before_reset, or LSTM's peepholes.
        if (linear && std::string(op) == "RNN") continue;
        RnnCase c;
        c.op = op;
        c.direction = dir;
        c.batch = 7;
        c.seq = 5;
        c.input = 9;
        c.hidden = 70;
        c.layout = variant % 2;
        c.bias = true;
        c.initial = true;
        c.peephole = c.lstm() && linear;
        c.lengths = true;
        c.lens = lengthsFor(c.batch, c.seq, ++variant);
        c.linearBeforeReset = op == std::string("GRU") && linear;
        c.constantWeights = variant % 2 == 0;
        check(c, ++seed);
      }
}

// A forward direction over a sequence-major X projects its inputs a chunk of steps at a time
// (512 KB of gate inputs a chunk, backends/cpu/ops/Recurrent.cpp): LSTM at batch 16 and 64
// hidden units is 16 KB a step, so 32-step chunks (75 steps: 32, 32, 11); GRU 12 KB, 42-step
// chunks; RNN at batch 256 and 16 units (64 units over 75 steps amplified rounding past the
// tolerance, with or without chunks), 16 KB, 32-step chunks. Entries ending mid-chunk, at a
// chunk's edge and at the last step; batch-major X (projected at once) alongside.
TEST(RecurrentOp, ProjectedInChunksOfSteps) {
  uint32_t seed = 1400;
  for (const char* op : {"LSTM", "GRU", "RNN"})
    for (int layout : {0, 1}) {
      RnnCase c;
      c.op = op;
      c.batch = c.op == "RNN" ? 256 : 16;
      c.seq = 75;
      c.input = 5;
      c.hidden = c.op == "RNN" ? 16 : 64;
      c.layout = layout;
      c.bias = true;
      c.initial = true;
      c.lengths = true;
      c.lens.assign(static_cast<size_t>(c.batch), c.seq);
      c.lens[1] = 20, c.lens[2] = 32, c.lens[3] = 33, c.lens[4] = 64, c.lens[5] = 1;
      c.constantWeights = layout == 0;
      check(c, ++seed);
    }
  // LSTM's step products go onto the projected rows where every entry is at one time: the
  // reverse direction with whole sequences (and, apart, one entry shorter, which cannot).
  for (bool whole : {true, false}) {
    RnnCase c;
    c.direction = "reverse";
    c.batch = 16;
    c.seq = 40;
    c.input = 5;
    c.hidden = 64;
    c.layout = whole ? 1 : 0;
    c.bias = true;
    c.initial = true;
    c.lengths = true;
    c.lens.assign(static_cast<size_t>(c.batch), c.seq);
    if (!whole) c.lens[3] = 17;
    check(c, ++seed);
  }
}

void expectFails(const RnnCase& c, const RnnInputs& in, const Attributes& attrs, const std::string& cause) {
  std::vector<Tensor> inputs = {in.x, in.w, in.r, in.b, in.lens, in.h0};
  while (inputs.back().dtype() == DataType::kUnknown) inputs.pop_back();
  OpRun r = runOp(c.op, inputs, attrs, 2, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk()) << cause;
  EXPECT_NE(r.status.message().find(c.op + " 'op'"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find(cause), std::string::npos) << r.status.message();
}

TEST(RecurrentOp, BadInputsFailNamingTheNode) {
  RnnCase c;
  c.op = "GRU";
  c.batch = 3;
  c.seq = 4;
  c.bias = true;
  const RnnInputs good = makeInputs(c, 1);
  const Attributes attrs = attrsOf(c);

  RnnInputs in = good;
  in.w = randomTensor({1, 3 * 5 + 1, 3}, 2);  // not G*hidden rows
  expectFails(c, in, attrs, "W ");
  in = good;
  in.r = randomTensor({2, 15, 5}, 2);  // two directions' worth for forward
  expectFails(c, in, attrs, "R ");
  in = good;
  in.b = randomTensor({1, 15}, 2);  // W's biases only
  expectFails(c, in, attrs, "B ");
  in = good;
  in.h0 = randomTensor({1, 2, 5}, 2);  // batch 2, not 3
  expectFails(c, in, attrs, "initial_h");

  Attributes a = attrs;
  a.setInt("hidden_size", 6);  // R says 5
  expectFails(c, good, a, "hidden_size");
  a = attrs;
  a.setString("direction", "sideways");
  expectFails(c, good, a, "direction 'sideways'");
  a = attrs;
  Attribute names;
  names.kind = Attribute::Kind::kStrings;
  names.strings = {"Sigmoid", "Swish"};
  a.set("activations", names);
  expectFails(c, good, a, "activation 'Swish'");
  names.strings = {"Sigmoid"};  // GRU takes two
  a.set("activations", names);
  expectFails(c, good, a, "1 activations given");
  a = attrs;
  a.setInt("layout", 2);
  expectFails(c, good, a, "layout 2");

  for (int32_t bad : {5, -1}) {  // sequence_lens outside [0, seq]
    in = good;
    in.lens = Tensor::hostAllocate({3}, DataType::kI32);
    in.lens.data<int32_t>()[0] = 4;
    in.lens.data<int32_t>()[1] = bad;
    in.lens.data<int32_t>()[2] = 2;
    expectFails(c, in, attrs, "sequence_lens[1] = " + std::to_string(bad));
  }
  in = good;
  in.lens = randomTensor({3}, 2);  // float lengths
  expectFails(c, in, attrs, "sequence_lens");
}

}  // namespace
}  // namespace test
}  // namespace tessera
