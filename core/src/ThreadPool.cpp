#include "tessera/ThreadPool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera {

// Workers sleep on a condition variable; each parallelFor publishes one job (a new
// generation) and every worker takes a fixed share of it. Chunks are static: kernels are
// regular, and static splits keep results independent of timing.
struct ThreadPool::State {
  std::mutex mutex;
  std::condition_variable wake;
  std::condition_variable done;
  std::vector<std::thread> workers;
  const std::function<void(int64_t, int64_t)>* job = nullptr;
  int64_t n = 0;
  int64_t chunk = 0;
  uint64_t generation = 0;
  int pending = 0;
  bool stop = false;
};

ThreadPool::ThreadPool(int threads) : threads_(std::max(1, threads)), state_(new State) {
  for (int w = 1; w < threads_; ++w) {
    state_->workers.emplace_back([this, w] {
      uint64_t seen = 0;
      for (;;) {
        std::unique_lock<std::mutex> lock(state_->mutex);
        state_->wake.wait(lock, [&] { return state_->stop || state_->generation != seen; });
        if (state_->stop) return;
        seen = state_->generation;
        const auto* job = state_->job;
        const int64_t begin = w * state_->chunk;
        const int64_t end = std::min(state_->n, begin + state_->chunk);
        lock.unlock();
        if (begin < end) (*job)(begin, end);
        lock.lock();
        if (--state_->pending == 0) state_->done.notify_one();
      }
    });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stop = true;
  }
  state_->wake.notify_all();
  for (auto& t : state_->workers) t.join();
  delete state_;
}

void ThreadPool::parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn,
                             int64_t minChunk) {
  if (n <= 0) return;
  if (threads_ == 1 || n <= std::max<int64_t>(minChunk, 1)) {
    fn(0, n);
    return;
  }
  const int64_t chunk = (n + threads_ - 1) / threads_;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->job = &fn;
    state_->n = n;
    state_->chunk = chunk;
    state_->pending = threads_ - 1;
    ++state_->generation;
  }
  state_->wake.notify_all();
  fn(0, std::min(n, chunk));
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->done.wait(lock, [&] { return state_->pending == 0; });
}

}  // namespace tessera
