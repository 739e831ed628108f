// Tasks split statically, with stealing: each worker owns a contiguous share of the tasks and
// claims them one at a time from its front; a worker done with its share claims the next
// unclaimed tasks of the others'. With every core at the same speed this is the static split
// (ThreadPool::parallelFor), each worker touching the same memory run after run and keeping
// it in its own cache (handing tasks out from one shared counter instead made memory-bound
// kernels 1.4-2x slower); on a shared machine, a core slowed by another process no longer
// holds the whole op up. For kernels with several independent tasks per thread, whose results
// do not depend on which worker runs a task.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "tessera/ThreadPool.hpp"

namespace tessera {

// Runs fn(task, worker) for every task in [0, tasks), worker in [0, workers) (a worker runs
// one task at a time, so it may own scratch memory).
template <typename Fn>
void runClaimedTasks(ThreadPool& pool, int64_t tasks, int workers, const Fn& fn) {
  constexpr int kMaxShares = 64;  // more workers share shares
  struct alignas(64) Share {      // a cache line each: no false sharing between owners
    std::atomic<int64_t> next;
    int64_t end;
  };
  const int shares = std::max(1, std::min(workers, kMaxShares));
  Share share[kMaxShares];
  for (int s = 0; s < shares; ++s) {
    share[s].next.store(tasks * s / shares, std::memory_order_relaxed);
    share[s].end = tasks * (s + 1) / shares;
  }
  pool.parallelFor(workers, [&](int64_t begin, int64_t end) {
    for (int64_t w = begin; w < end; ++w)
      for (int i = 0; i < shares; ++i) {  // its own share first, then the others'
        Share& s = share[(w + i) % shares];
        for (int64_t t = s.next.fetch_add(1, std::memory_order_relaxed); t < s.end;
             t = s.next.fetch_add(1, std::memory_order_relaxed))
          fn(t, w);
      }
  }, 1);
}

// Runs fn(begin, end) over [0, n) in ranges of `grain` items (rows of an output, say),
// claimed as above.
template <typename Fn>
void runClaimedRanges(ThreadPool& pool, int64_t n, int64_t grain, const Fn& fn) {
  const int64_t tasks = (n + grain - 1) / grain;
  runClaimedTasks(pool, tasks, static_cast<int>(std::min<int64_t>(pool.threads(), tasks)),
                  [&](int64_t t, int64_t) { fn(t * grain, std::min(n, (t + 1) * grain)); });
}

}  // namespace tessera
