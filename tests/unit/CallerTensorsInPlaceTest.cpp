// A graph input that only copy steps read (uploads to a GPU backend, the CPU's NCHW ->
// NC4HW4) is not copied into the Session (the copy reads the caller's tensor in place for
// that run), and a graph output that only a copy step writes (a GPU download, the CPU's
// NC4HW4 -> NCHW) is written straight into the tensor handed back (Session::run). Each
// run here gives a new input tensor, in a new shape every second run (each shape run twice),
// and must see its own values: a step left pointing at an earlier run's input, or at the
// Session's view of it, reads old values or freed memory (the sanitizer builds run this
// too). Every run's outputs must keep their values after later runs (a download left
// pointing at an earlier run's output would overwrite it). Also an input that is an output
// as well, read back on the host: still copied into the Session. And a map handed to run()
// again: its tensors that nothing else holds are refilled in place, never one the caller
// kept a copy of.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {
namespace {

// x -> Relu -> *relu, and with `alsoOutput` x itself is an output too (read back on the host).
std::shared_ptr<Graph> reluGraph(bool alsoOutput, std::string* relu) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {-1, 5, 7});
  *relu = gb.op1("Relu", {x});
  gb.output(*relu);
  if (alsoOutput) gb.output(x);
  std::shared_ptr<Graph> g;
  EXPECT_TRUE(gb.build(&g).isOk());
  return g;
}

TEST(CallerTensorsInPlace, EachRunReadsItsInputAndFillsItsOwnOutputs) {
  for (BackendType b : availableBackends()) {
    if (b == BackendType::kCPU) continue;
    for (bool alsoOutput : {false, true}) {
      const std::string where = std::string(backendTypeName(b)) + (alsoOutput ? ", x also an output" : "");
      SessionOptions o;
      o.backends = {b};
      std::unique_ptr<Session> s;
      std::string relu;
      ASSERT_TRUE(Session::create(reluGraph(alsoOutput, &relu), o, &s).isOk()) << where;
      std::vector<Tensor> inputs;  // every run's, alive to the end
      std::vector<std::pair<Tensor, Tensor>> results;  // every run's output and its expected values
      for (int run = 0; run < 6; ++run) {
        std::map<std::string, Tensor> outs;
        Tensor expected, given;
        {
          inputs.push_back(randomTensor({1 + (run / 2) % 2, 5, 7}, 100 + run, -1.f, 1.f));  // 1, 1, 2, 2, 1, 1
          const Tensor& x = inputs.back();
          expected = Tensor::hostAllocate(x.shape(), DataType::kF32);
          for (int64_t i = 0; i < x.elementCount(); ++i) expected.data<float>()[i] = std::max(0.f, x.data<float>()[i]);
          given = Tensor::hostAllocate(x.shape(), DataType::kF32);
          std::memcpy(given.data(), x.data(), x.byteSize());
          const Status st = s->run({{"x", x}}, &outs);
          ASSERT_TRUE(st.isOk()) << where << ": " << st.message();
        }
        ASSERT_EQ(outs.size(), alsoOutput ? 2u : 1u);
        for (const auto& n : s->report().nodes) EXPECT_EQ(n.backend, b) << where << ": " << n.node;
        expectClose(outs.at(relu), expected, 0, 0, where + " run " + std::to_string(run));
        results.push_back({outs.at(relu), expected});
        if (alsoOutput) expectClose(outs.at("x"), given, 0, 0, where + " x, run " + std::to_string(run));
      }
      for (size_t run = 0; run < results.size(); ++run)
        expectClose(results[run].first, results[run].second, 0, 0, where + " run " + std::to_string(run) + ", after all runs");
    }
  }
}

// x -> 1x1 Conv (3 -> 5 channels, packed NC4HW4 on the CPU: a copy step on each side).
std::shared_ptr<Graph> pointwiseGraph(std::string* y, Tensor* w) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {-1, 3, -1, 9});
  *w = randomTensor({5, 3, 1, 1}, 7, -1.f, 1.f);
  *y = gb.op1("Conv", {x, gb.constant("w", *w)});
  gb.output(*y);
  std::shared_ptr<Graph> g;
  EXPECT_TRUE(gb.build(&g).isOk());
  return g;
}

TEST(CallerTensorsInPlace, CpuLayoutCopiesReadAndWriteTheCallersTensors) {
  SessionOptions o;
  o.backends = {BackendType::kCPU};
  std::unique_ptr<Session> s;
  std::string y;
  Tensor w;
  ASSERT_TRUE(Session::create(pointwiseGraph(&y, &w), o, &s).isOk());
  std::vector<std::pair<Tensor, Tensor>> results;  // every run's output and its expected values
  for (int run = 0; run < 6; ++run) {
    const int64_t N = 1 + (run / 2) % 2, H = 5 + run / 2, S = H * 9;  // a new shape every second run
    std::map<std::string, Tensor> outs;
    Tensor expected = Tensor::hostAllocate({N, 5, H, 9}, DataType::kF32);
    {
      const Tensor x = randomTensor({N, 3, H, 9}, 200 + run, -1.f, 1.f);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t m = 0; m < 5; ++m)
          for (int64_t i = 0; i < S; ++i) {
            double sum = 0;
            for (int64_t c = 0; c < 3; ++c) sum += double(w.data<float>()[m * 3 + c]) * x.data<float>()[(n * 3 + c) * S + i];
            expected.data<float>()[(n * 5 + m) * S + i] = static_cast<float>(sum);
          }
      const Status st = s->run({{"x", x}}, &outs);
      ASSERT_TRUE(st.isOk()) << st.message();
    }  // x freed: a step still pointing at it would read freed memory next run (ASan)
    expectClose(outs.at(y), expected, 1e-5, 1e-5, "run " + std::to_string(run));
    results.push_back({outs.at(y), expected});
  }
  for (size_t run = 0; run < results.size(); ++run)
    expectClose(results[run].first, results[run].second, 1e-5, 1e-5, "run " + std::to_string(run) + ", after all runs");
}

// CPU executions that read a graph input in place (Execution::readsInputInPlace: a conv on a
// 3-channel image, which reads NCHW itself; a Transpose) are handed the caller's tensor: each
// run a new one, freed after the run, in a new shape every second run, and each run must see
// its own values (a conv keeping a pointer from planning would read an earlier run's image).
TEST(CallerTensorsInPlace, CpuKernelsReadTheCallersInput) {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {1, 3, -1, -1});
  const Tensor w = randomTensor({8, 3, 3, 3}, 8, -1.f, 1.f);
  Attributes conv;
  conv.setInts("pads", {1, 1, 1, 1});
  conv.setInts("strides", {2, 2});
  const std::string y = gb.op1("Conv", {x, gb.constant("w", w)}, conv);
  gb.output(y);
  const std::string nhwc = gb.input("nhwc", DataType::kF32, {1, -1, 6, 4});
  Attributes perm;
  perm.setInts("perm", {0, 3, 1, 2});
  const std::string t = gb.op1("Transpose", {nhwc}, perm);
  gb.output(t);
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  SessionOptions o;
  o.backends = {BackendType::kCPU};
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, o, &s).isOk());
  for (int run = 0; run < 6; ++run) {
    const int64_t H = 9 + run / 2 * 4, W = 11 + run / 2, OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1;
    std::map<std::string, Tensor> outs;
    Tensor expected = Tensor::hostAllocate({1, 8, OH, OW}, DataType::kF32);
    Tensor expectedT = Tensor::hostAllocate({1, 4, H, 6}, DataType::kF32);
    {
      const Tensor image = randomTensor({1, 3, H, W}, 300 + run, -1.f, 1.f);
      const Tensor other = randomTensor({1, H, 6, 4}, 400 + run, -1.f, 1.f);
      for (int64_t m = 0; m < 8; ++m)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            double sum = 0;
            for (int64_t c = 0; c < 3; ++c)
              for (int64_t kh = 0; kh < 3; ++kh)
                for (int64_t kw = 0; kw < 3; ++kw) {
                  const int64_t ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
                  if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                  sum += double(w.data<float>()[((m * 3 + c) * 3 + kh) * 3 + kw]) * image.data<float>()[(c * H + ih) * W + iw];
                }
            expected.data<float>()[(m * OH + oh) * OW + ow] = static_cast<float>(sum);
          }
      for (int64_t c = 0; c < 4; ++c)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t j = 0; j < 6; ++j) expectedT.data<float>()[(c * H + h) * 6 + j] = other.data<float>()[(h * 6 + j) * 4 + c];
      const Status st = s->run({{"x", image}, {"nhwc", other}}, &outs);
      ASSERT_TRUE(st.isOk()) << st.message();
    }  // the inputs freed: a step still pointing at one would read freed memory next run (ASan)
    expectClose(outs.at(y), expected, 1e-5, 1e-5, "conv, run " + std::to_string(run));
    expectClose(outs.at(t), expectedT, 0, 0, "transpose, run " + std::to_string(run));
  }
}

// The outputs map of one run handed to the next: a tensor only the map holds, of the
// output's shape and type, is refilled in place (no fresh memory each run); one the caller
// also kept, or of another shape or type, is left alone and the output gets new memory. Every
// backend at hand, with an output written three ways: by a kernel (Relu on the CPU, copied
// to the caller), by a copy step (the CPU's NC4HW4 -> NCHW after a Conv) or by a download.
TEST(CallerTensorsInPlace, RunRefillsOutputsOnlyTheMapHolds) {
  for (BackendType b : availableBackends()) {
    for (bool conv : {false, true}) {
      const std::string where = std::string(backendTypeName(b)) + (conv ? ", Conv" : ", Relu");
      SessionOptions o;
      o.backends = {b};
      std::unique_ptr<Session> s;
      std::string y;
      Tensor w;
      std::shared_ptr<Graph> g = conv ? pointwiseGraph(&y, &w) : reluGraph(false, &y);
      ASSERT_TRUE(Session::create(g, o, &s).isOk()) << where;
      const Shape small = conv ? Shape{1, 3, 4, 9} : Shape{1, 5, 7}, large = conv ? Shape{2, 3, 4, 9} : Shape{2, 5, 7};
      std::map<std::string, Tensor> outs;
      // Runs x (seeded) and checks y against a fresh Session-independent run of the same
      // graph: a second Session, its own map each time.
      auto runAndCheck = [&](const Shape& shape, uint32_t seed, const std::string& what) -> Tensor {
        const Tensor x = randomTensor(shape, seed, -1.f, 1.f);
        std::unique_ptr<Session> ref;
        EXPECT_TRUE(Session::create(g, o, &ref).isOk());
        std::map<std::string, Tensor> expected;
        EXPECT_TRUE(ref->run({{"x", x}}, &expected).isOk());
        const Status st = s->run({{"x", x}}, &outs);
        EXPECT_TRUE(st.isOk()) << where << ", " << what << ": " << st.message();
        expectClose(outs.at(y), expected.at(y), 0, 0, where + ", " + what);
        return expected.at(y);
      };
      runAndCheck(small, 1, "first run");
      const void* first = outs.at(y).data();
      runAndCheck(small, 2, "second run");
      EXPECT_EQ(outs.at(y).data(), first) << where << ": the map's tensor was not refilled";
      const Tensor kept = outs.at(y);  // the caller keeps run 2's result
      const Tensor keptValues = runAndCheck(small, 2, "run 2 again");
      runAndCheck(small, 3, "third run, run 2's result kept");
      EXPECT_NE(outs.at(y).data(), first) << where << ": a tensor the caller kept was overwritten";
      expectClose(kept, keptValues, 0, 0, where + ", the kept result after the third run");
      const void* third = outs.at(y).data();
      runAndCheck(large, 4, "another shape");
      EXPECT_NE(outs.at(y).data(), third) << where;
      EXPECT_EQ(outs.at(y).shape()[0], 2) << where;
      outs[y] = Tensor::hostAllocate(outs.at(y).shape(), DataType::kI32);  // the right shape, another type
      const void* wrongType = outs.at(y).data();
      runAndCheck(large, 5, "a tensor of another type in the map");
      EXPECT_NE(outs.at(y).data(), wrongType) << where;
      EXPECT_EQ(outs.at(y).dtype(), DataType::kF32) << where;
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
