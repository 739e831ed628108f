// Tasks handed out one at a time: each worker claims the next task when it finishes one.
// A static split (ThreadPool::parallelFor) waits for its slowest share; on a shared machine a
// core slowed by another process would hold the whole op up, where here the other workers
// take its unclaimed tasks. For kernels with several independent tasks per thread whose
// results do not depend on which worker runs them.
#pragma once
#include <atomic>
#include <cstdint>

#include "tessera/ThreadPool.hpp"

namespace tessera {

// Runs fn(task, worker) for every task in [0, tasks), worker in [0, workers) (a worker runs
// one task at a time, so it may own scratch memory).
template <typename Fn>
void runClaimedTasks(ThreadPool& pool, int64_t tasks, int workers, const Fn& fn) {
  std::atomic<int64_t> next{0};
  pool.parallelFor(workers, [&](int64_t begin, int64_t end) {
    for (int64_t w = begin; w < end; ++w)
      for (int64_t t = next.fetch_add(1, std::memory_order_relaxed); t < tasks;
           t = next.fetch_add(1, std::memory_order_relaxed))
        fn(t, w);
  }, 1);
}

}  // namespace tessera
