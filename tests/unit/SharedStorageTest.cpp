// Reshape and its kin take their input's storage (Execution::outputIsInputBytes,
// Backend::onShareBuffer): no copy, no dispatch, no memory. The storage must then live until
// the last reader of any tensor sharing it: here the reshaped tensor's source is read again
// after the reshape's own reader wrote a tensor of the same size, the reuse a release at the
// wrong time would hand that storage to. Graph outputs keep storage of their own.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/OpTest.hpp"
#include "tessera/Session.hpp"

namespace tessera {
namespace test {
namespace {

// a = Relu(x); b = Reshape(a, [n, 105]); c = Neg(b); e = Reshape(c, x's shape);
// f = Sub(a, e) = 2 relu(x); y = Relu(Squeeze(Unsqueeze(f, 0), 0)); also the output
// flat = Reshape(a, [n, 105]).
std::shared_ptr<Graph> reshapeGraph() {
  GraphBuilder gb;
  const std::string x = gb.input("x", DataType::kF32, {-1, 3, 5, 7});
  const std::string a = gb.op1("Relu", {x});
  const std::string flatShape = gb.constant("flat_shape", tensorFromInts({2}, {0, 105}));
  const std::string b = gb.op1("Reshape", {a, flatShape});
  const std::string c = gb.op1("Neg", {b});
  const std::string e = gb.op1("Reshape", {c, gb.constant("x_shape", tensorFromInts({4}, {-1, 3, 5, 7}))});
  const std::string f = gb.op1("Sub", {a, e});
  const std::string axis = gb.constant("axis", tensorFromInts({1}, {0}));
  const std::string h = gb.op1("Squeeze", {gb.op1("Unsqueeze", {f, axis}), axis});
  gb.output(gb.op1("Relu", {h}));
  gb.output(gb.op1("Reshape", {a, flatShape}));
  std::shared_ptr<Graph> g;
  EXPECT_TRUE(gb.build(&g).isOk());
  return g;
}

TEST(SharedStorage, ReshapesTakeTheirInputsStorageAndItLivesUntilTheLastReader) {
  for (BackendType backend : availableBackends()) {
    const std::string where = backendTypeName(backend);
    SessionOptions o;
    o.backends = {backend};
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(reshapeGraph(), o, &s).isOk()) << where;
    // Batch 2, 1, then 2 again: the third run reuses the first plan where plans are kept.
    for (int64_t n : {2, 1, 2}) {
      const Tensor x = randomTensor({n, 3, 5, 7}, static_cast<uint32_t>(n));
      std::map<std::string, Tensor> outs;
      const Status st = s->run({{"x", x}}, &outs);
      ASSERT_TRUE(st.isOk()) << where << ": " << st.message();
      ASSERT_EQ(outs.size(), 2u) << where;
      Tensor twice = Tensor::hostAllocate(x.shape(), DataType::kF32);
      Tensor flat = Tensor::hostAllocate({n, 105}, DataType::kF32);
      for (int64_t i = 0; i < x.elementCount(); ++i) {
        const float r = std::max(0.f, x.data<float>()[i]);
        twice.data<float>()[i] = 2 * r;
        flat.data<float>()[i] = r;
      }
      const std::string what = where + " batch " + std::to_string(n);
      const Tensor* y = nullptr;
      const Tensor* flatOut = nullptr;
      std::string flatName;
      for (const auto& kv : outs) {
        if (kv.second.shape().size() == 4) {
          y = &kv.second;
        } else {
          flatOut = &kv.second;
          flatName = kv.first;
        }
      }
      ASSERT_TRUE(y && flatOut) << what;
      expectClose(*y, twice, 1e-6, 0, what + ": 2 relu(x)");
      expectClose(*flatOut, flat, 0, 0, what + ": the reshaped output");

      const PlacementReport& r = s->report();
      // The CPU runs all in NCHW: both inner Reshapes, the Unsqueeze and the Squeeze share. A
      // GPU backend may run the elementwise ops in NC4HW4, then a reshape takes the storage of
      // the conversion to NCHW before it, but at least one must share. (On a GPU even the
      // output's Reshape may share: its device tensor is an intermediate the download reads.)
      if (backend == BackendType::kCPU)
        EXPECT_EQ(r.sharedStorage.size(), 4u) << what << "\n" << r.toString();
      else
        EXPECT_GE(r.sharedStorage.size(), 1u) << what << "\n" << r.toString();
      if (backend == BackendType::kCPU)  // the graph output has storage of its own
        for (const std::string& line : r.sharedStorage)
          EXPECT_NE(line.rfind("'" + flatName + "' takes", 0), 0u) << what << ": " << line;
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
