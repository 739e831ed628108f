// Core layer: data types, layouts, the memory planner, the thread pool and the Session.
#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <thread>
#include <vector>

#include "backends/cpu/MemoryPlanner.hpp"
#include "support/OpTest.hpp"
#include "tessera/ThreadPool.hpp"

namespace tessera {
namespace {

TEST(Status, ContextIsAddedOnceAndNeverToOk) {
  const Status named = Status::invalid("Conv 'c1': bad pads");
  EXPECT_EQ(named.withContext("Conv 'c1'").message(), "Conv 'c1': bad pads");
  EXPECT_EQ(named.withContext("Conv 'c2'").message(), "Conv 'c2': Conv 'c1': bad pads");
  EXPECT_EQ(Status::invalid("bad pads").withContext("Conv 'c1'").message(), "Conv 'c1': bad pads");
  EXPECT_EQ(Status::invalid("Conv 'c1'x").withContext("Conv 'c1'").message(), "Conv 'c1': Conv 'c1'x");
  EXPECT_TRUE(Status::ok().withContext("x").isOk());
}

TEST(DataType, HalfRoundTripAndSpecials) {
  for (float f : {0.f, 1.f, -2.5f, 65504.f, 6.1035156e-05f, 5.9604645e-08f, 0.333251953125f})
    EXPECT_EQ(halfToFloat(floatToHalf(f)), f) << f;
  EXPECT_TRUE(std::isinf(halfToFloat(floatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  EXPECT_EQ(floatToHalf(1.0f + 1.0f / 4096), floatToHalf(1.0f));  // ties round to even
  EXPECT_EQ(bfloat16ToFloat(floatToBFloat16(3.0f)), 3.0f);
}

TEST(Layout, NC4HW4RoundTripPadsWithZeros) {
  for (Shape s : {Shape{1, 1, 3, 3}, Shape{3, 5, 2, 7}, Shape{2, 13, 1, 1}, Shape{2, 6, 5}}) {
    Tensor a = test::randomTensor(s, 7);
    Tensor packed = Tensor::hostAllocate(s, DataType::kF32, Layout::kNC4HW4);
    Tensor back = Tensor::hostAllocate(s, DataType::kF32);
    convertLayout(a, packed);
    convertLayout(packed, back);
    test::expectClose(back, a, 0, 0, shapeToString(s));
    const int64_t S = s.size() > 2 ? elementCount(Shape(s.begin() + 2, s.end())) : 1;
    // Element (n=0, c=1, s=0) sits in lane 1 of the first pack.
    if (s[1] > 1) EXPECT_EQ(packed.data<float>()[1], a.data<float>()[S]);
    // Padding lanes are zero.
    if (s[1] % 4) EXPECT_EQ(packed.data<float>()[((s[1] + 3) / 4 - 1) * S * 4 + 3], 0.f);
  }
}

// The NCHW <-> NC4HW4 pair converts in pieces (8192 pixels of a 4-channel block) that threads
// may take in any split: every split, every element size, blocks past a piece boundary and
// ragged last blocks must give the element-by-element definition, padding lanes zero.
TEST(Layout, NC4HW4PiecesMatchDefinitionInAnySplit) {
  for (Shape s : {Shape{2, 7, 91, 97}, Shape{1, 3, 8193}, Shape{3, 4, 2}, Shape{1, 9, 1}}) {
    for (DataType dt : {DataType::kU8, DataType::kF16, DataType::kF32, DataType::kI64}) {
      const size_t es = dataTypeSize(dt);
      Tensor a = Tensor::hostAllocate(s, dt);
      auto* bytes = a.data<uint8_t>();
      for (size_t i = 0; i < a.byteSize(); ++i) bytes[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
      const int64_t N = s[0], C = s[1], S = elementCount(s) / (N * C), C4 = (C + 3) / 4 * 4;
      Tensor packed = Tensor::hostAllocate(s, dt, Layout::kNC4HW4);
      const int64_t pieces = layoutPieces(a, packed);
      ASSERT_EQ(pieces, N * (C4 / 4) * ((S + 8191) / 8192));
      for (int64_t split : {int64_t(1), int64_t(2), int64_t(3)}) {
        std::memset(packed.data(), 0xAB, packed.byteSize());  // so padding lanes must be written
        for (int64_t part = 0; part < split; ++part)
          convertLayoutPieces(a, packed, pieces * part / split, pieces * (part + 1) / split);
        const std::string what = shapeToString(s) + " " + dataTypeName(dt) + " in " + std::to_string(split);
        for (int64_t n = 0; n < N; ++n)
          for (int64_t c = 0; c < C4; ++c)
            for (int64_t i = 0; i < S; ++i) {
              const uint8_t* got = packed.data<uint8_t>() + (((n * C4 / 4 + c / 4) * S + i) * 4 + c % 4) * es;
              for (size_t b = 0; b < es; ++b) {
                const uint8_t want = c < C ? bytes[((n * C + c) * S + i) * es + b] : 0;
                ASSERT_EQ(got[b], want) << what << " n" << n << " c" << c << " i" << i;
              }
            }
        Tensor back = Tensor::hostAllocate(s, dt);
        for (int64_t part = 0; part < split; ++part)
          convertLayoutPieces(packed, back, pieces * part / split, pieces * (part + 1) / split);
        ASSERT_EQ(std::memcmp(back.data(), a.data(), a.byteSize()), 0) << what << " back to NCHW";
      }
    }
  }
  Tensor nchw = Tensor::hostAllocate({1, 2, 3}, DataType::kF32), nhwc = Tensor::hostAllocate({1, 2, 3}, DataType::kF32, Layout::kNHWC);
  EXPECT_EQ(layoutPieces(nchw, nhwc), 0);  // only the NCHW <-> NC4HW4 pair comes in pieces
}

// ... and in bands of pixels of one image, every channel (CpuBackend's split by rows): any
// bands, both directions, ragged last blocks, batch 2.
TEST(Layout, NC4HW4BandsMatchPieces) {
  for (Shape s : {Shape{2, 7, 9, 5}, Shape{1, 4, 13}, Shape{1, 9, 3, 3}}) {
    const Tensor a = test::randomTensor(s, 21);
    Tensor want = Tensor::hostAllocate(s, DataType::kF32, Layout::kNC4HW4);
    convertLayoutPieces(a, want, 0, layoutPieces(a, want));
    const int64_t N = s[0], S = elementCount(s) / (s[0] * s[1]);
    for (int64_t bands : {int64_t(1), int64_t(2), int64_t(3), S}) {
      Tensor packed = Tensor::hostAllocate(s, DataType::kF32, Layout::kNC4HW4);
      std::memset(packed.data(), 0xAB, packed.byteSize());  // so padding lanes must be written
      for (int64_t n = 0; n < N; ++n)
        for (int64_t b = 0; b < bands; ++b) convertLayoutBand(a, packed, n, S * b / bands, S * (b + 1) / bands);
      const std::string what = shapeToString(s) + " in " + std::to_string(bands) + " bands";
      ASSERT_EQ(std::memcmp(packed.data(), want.data(), want.byteSize()), 0) << what;
      Tensor back = Tensor::hostAllocate(s, DataType::kF32);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t b = 0; b < bands; ++b) convertLayoutBand(packed, back, n, S * b / bands, S * (b + 1) / bands);
      ASSERT_EQ(std::memcmp(back.data(), a.data(), a.byteSize()), 0) << what << " back to NCHW";
    }
  }
}

TEST(Layout, NHWCMatchesDefinition) {
  Tensor a = test::randomTensor({2, 3, 2, 5}, 3);
  Tensor nhwc = Tensor::hostAllocate(a.shape(), DataType::kF32, Layout::kNHWC);
  convertLayout(a, nhwc);
  // (n=1, c=2, h=1, w=4) -> ((1*2+1)*5+4)*3+2
  EXPECT_EQ(nhwc.data<float>()[((1 * 2 + 1) * 5 + 4) * 3 + 2], a.data<float>()[((1 * 3 + 2) * 2 + 1) * 5 + 4]);
}

TEST(MemoryPlanner, ReusesReleasedBlocks) {
  MemoryPlanner p;
  auto a = p.acquire(1000);
  auto b = p.acquire(1000);
  p.release(a);
  auto c = p.acquire(900);  // fits into a's block
  EXPECT_EQ(c.offset, a.offset);
  p.release(b);
  p.release(c);
  auto d = p.acquire(2000);  // the merged free space holds it
  EXPECT_EQ(d.offset, 0u);
  EXPECT_EQ(p.peakBytes(), 2048u);
}

TEST(ThreadPool, CoversRangeExactlyOnce) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> hits(1001);
  pool.parallelFor(1001, [&](int64_t b, int64_t e) { for (int64_t i = b; i < e; ++i) hits[i]++; });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

// A worker that does not run (its core lent to another process; here held in a signal
// handler) must not hold up the caller: the caller runs that worker's chunk itself.
std::atomic<bool> workerHeld{false}, releaseWorker{false};
void holdWorker(int) {
  workerHeld = true;
  const timespec pause{0, 1000000};
  while (!releaseWorker) nanosleep(&pause, nullptr);
  workerHeld = false;
}

TEST(ThreadPool, CallerRunsTheChunkOfAWorkerThatHasNotStarted) {
  ThreadPool pool(2);
  // The worker's thread: the one that runs chunk 1 while the caller, in chunk 0, waits for it
  // (a caller done with its own chunk would take chunk 1 too).
  std::atomic<pthread_t> worker{};
  std::atomic<bool> found{false};
  const pthread_t caller = pthread_self();
  pool.parallelFor(2, [&](int64_t b, int64_t) {
    if (b == 1 && !pthread_equal(pthread_self(), caller)) {
      worker = pthread_self();
      found = true;
    }
    for (int i = 0; b == 0 && i < 10000 && !found; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  ASSERT_TRUE(found) << "the worker never ran a chunk";
  struct sigaction hold {}, previous{};
  hold.sa_handler = holdWorker;
  sigemptyset(&hold.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &hold, &previous), 0);
  releaseWorker = false;
  ASSERT_EQ(pthread_kill(worker.load(), SIGUSR1), 0);
  for (int i = 0; i < 10000 && !workerHeld; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(workerHeld);

  std::vector<std::atomic<int>> hits(2);
  std::atomic<bool> onCaller{true};
  auto job = std::async(std::launch::async, [&] {
    const pthread_t caller = pthread_self();
    pool.parallelFor(2, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[i]++;
      if (!pthread_equal(pthread_self(), caller)) onCaller = false;
    });
  });
  const bool returned = job.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  releaseWorker = true;  // (a pool that waited would finish now)
  job.get();
  EXPECT_TRUE(returned) << "parallelFor waited for a worker that had not started";
  EXPECT_TRUE(onCaller);
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  for (int i = 0; i < 10000 && workerHeld; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  sigaction(SIGUSR1, &previous, nullptr);

  // The released worker takes its chunks again; every index still runs once.
  std::vector<std::atomic<int>> again(1001);
  for (int round = 0; round < 20; ++round)
    pool.parallelFor(1001, [&](int64_t b, int64_t e) { for (int64_t i = b; i < e; ++i) again[i]++; });
  for (auto& h : again) EXPECT_EQ(h.load(), 20);
}

std::shared_ptr<Graph> chain(int length) {
  GraphBuilder b;
  std::string x = b.input("x", DataType::kF32, {-1, 3, -1, -1});
  for (int i = 0; i < length; ++i) x = b.op1("Neg", {x});
  x = b.op1("Relu", {x});
  b.output(x);
  std::shared_ptr<Graph> g;
  EXPECT_TRUE(b.build(&g).isOk());
  return g;
}

TEST(Session, ReusesIntermediateMemoryAndReplansOnResize) {
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(chain(6), SessionOptions{}, &s).isOk());
  std::map<std::string, Tensor> out;
  Tensor x = test::randomTensor({2, 3, 5, 7}, 1);
  ASSERT_TRUE(s->run({{"x", x}}, &out).isOk());
  // six negations, then relu: relu(x)
  Tensor expect = Tensor::hostAllocate(x.shape(), DataType::kF32);
  for (int64_t i = 0; i < x.elementCount(); ++i) expect.data<float>()[i] = std::max(0.f, x.data<float>()[i]);
  test::expectClose(out.begin()->second, expect, 0, 0);
  const auto& r = s->report();
  EXPECT_LT(r.plannedPeakBytes, r.intermediateBytes) << r.toString();

  Tensor y = test::randomTensor({1, 3, 9, 4}, 2);  // new shape: re-planned transparently
  ASSERT_TRUE(s->run({{"x", y}}, &out).isOk());
  EXPECT_EQ(shapeToString(out.begin()->second.shape()), "1x3x9x4");
}

TEST(Session, BadInputsGiveClearErrors) {
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(chain(2), SessionOptions{}, &s).isOk());
  std::map<std::string, Tensor> out;
  Status st = s->run({}, &out);
  EXPECT_NE(st.message().find("missing input 'x'"), std::string::npos) << st.message();
  st = s->run({{"x", test::randomTensor({1, 3, 4}, 1)}}, &out);
  EXPECT_NE(st.message().find("rank 4"), std::string::npos) << st.message();
  st = s->run({{"x", test::randomTensor({1, 4, 4, 4}, 1)}}, &out);
  EXPECT_NE(st.message().find("dimension 1 must be 3"), std::string::npos) << st.message();
  st = s->run({{"x", test::tensorFromInts({1, 3, 4, 4}, {})}}, &out);
  EXPECT_NE(st.message().find("must be f32 but is i64"), std::string::npos) << st.message();
}

TEST(Session, UnknownOpIsReportedByName) {
  GraphBuilder b;
  std::string x = b.input("x", DataType::kF32, {1});
  x = b.op1("NoSuchOp", {x});
  b.output(x);
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(b.build(&g).isOk());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
  std::map<std::string, Tensor> out;
  Status st = s->run({{"x", test::randomTensor({1}, 1)}}, &out);
  EXPECT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_NE(st.message().find("NoSuchOp"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// A model that asks for an absurd tensor gets a clear out-of-memory error, not a crash.
TEST(Session, HugeTensorsAreAClearError) {
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{1 << 30, 1 << 30, 1 << 30},
                                           std::vector<int64_t>{1 << 20, 1 << 20, 1 << 12}}) {
    GraphBuilder b;
    b.input("x", DataType::kF32, {1});
    Tensor shape = Tensor::hostAllocate({static_cast<int64_t>(dims.size())}, DataType::kI64);
    for (size_t i = 0; i < dims.size(); ++i) shape.data<int64_t>()[i] = dims[i];
    const std::string y = b.op1("Expand", {"x", b.constant("shape", shape)});
    b.output(y);
    std::shared_ptr<Graph> g;
    ASSERT_TRUE(b.build(&g).isOk());
    std::unique_ptr<Session> s;
    ASSERT_TRUE(Session::create(g, SessionOptions{}, &s).isOk());
    std::map<std::string, Tensor> out;
    Status st = s->run({{"x", test::randomTensor({1}, 1)}}, &out);
    EXPECT_EQ(st.code(), StatusCode::kOutOfMemory) << st.message();
    EXPECT_NE(st.message().find("Expand"), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace tessera
