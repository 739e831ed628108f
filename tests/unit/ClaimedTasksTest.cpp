// runClaimedTasks (backends/cpu/ClaimedTasks.hpp): every task runs exactly once whatever the
// thread count, each worker's own share comes first, and a worker held up leaves its
// unclaimed tasks to the others instead of holding the whole loop up.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "backends/cpu/ClaimedTasks.hpp"
#include "tessera/ThreadPool.hpp"

namespace tessera {
namespace {

TEST(ClaimedTasks, EveryTaskRunsOnceOnAnyThreadCount) {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    for (int64_t tasks : {0, 1, 2, 7, 64, 1000}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
      std::atomic<bool> workerInRange{true};
      runClaimedTasks(pool, tasks, threads, [&](int64_t t, int64_t w) {
        runs[static_cast<size_t>(t)].fetch_add(1);
        if (w < 0 || w >= threads) workerInRange = false;
      });
      for (int64_t t = 0; t < tasks; ++t)
        EXPECT_EQ(runs[static_cast<size_t>(t)].load(), 1) << threads << " threads, task " << t;
      EXPECT_TRUE(workerInRange.load());
    }
  }
}

TEST(ClaimedTasks, RangesCoverTheWholeLoopInGrains) {
  ThreadPool pool(2);
  for (int64_t n : {1, 5, 8, 33}) {
    std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
    runClaimedRanges(pool, n, 4, [&](int64_t begin, int64_t end) {
      EXPECT_LE(end - begin, 4);
      EXPECT_EQ(begin % 4, 0);
      for (int64_t i = begin; i < end; ++i) seen[static_cast<size_t>(i)].fetch_add(1);
    });
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(seen[static_cast<size_t>(i)].load(), 1) << "n " << n << ", item " << i;
  }
}

// Worker 0 (the calling thread) is held on its first task until worker 1 has run one of
// worker 0's share (tasks [0, 8)): with a static split it would wait for ever (here: until
// the deadline, and the test fails).
TEST(ClaimedTasks, AWorkerHeldUpLeavesItsTasksToTheOthers) {
  ThreadPool pool(2);
  constexpr int64_t kTasks = 16;
  std::vector<std::atomic<int>> ranBy(kTasks);
  std::atomic<bool> stolen{false};
  std::atomic<bool> held{false};
  runClaimedTasks(pool, kTasks, 2, [&](int64_t t, int64_t w) {
    ranBy[static_cast<size_t>(t)] = static_cast<int>(w);
    if (w == 1 && t < kTasks / 2) stolen = true;
    if (w == 0 && !held.exchange(true)) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!stolen.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    }
  });
  EXPECT_TRUE(stolen.load()) << "worker 1 never took a task of worker 0's share";
  EXPECT_EQ(ranBy[kTasks / 2].load(), 1);  // worker 1 started on its own share
}

}  // namespace
}  // namespace tessera
