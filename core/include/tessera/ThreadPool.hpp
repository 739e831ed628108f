// A small fixed thread pool for data-parallel loops in CPU kernels.
#pragma once
#include <cstdint>
#include <functional>

namespace tessera {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_; }
  // Splits [0, n) into contiguous chunks and runs fn(begin, end) once on each, the calling
  // thread taking a share. A chunk whose worker has not begun it when the caller is done
  // with its own (50 us later for a worker that was asleep) runs on the caller (a worker
  // whose core is busy elsewhere does not hold the loop up), so fn may not rely on which
  // thread runs a chunk. Returns when all are done.
  // Small loops run inline. Safe to call from several threads (and from inside a job):
  // while one call uses the workers, the others run their loops inline on their own thread.
  void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn,
                   int64_t minChunk = 1);

  struct State;

 private:
  int threads_;
  State* state_;
};

}  // namespace tessera
