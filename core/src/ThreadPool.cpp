#include "tessera/ThreadPool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_CPU_RELAX() _mm_pause()
#else
#define TESSERA_CPU_RELAX() std::this_thread::yield()
#endif

namespace tessera {

// Each parallelFor publishes one job (a new generation) split into one contiguous chunk per
// thread: kernels are regular, and static splits keep results independent of timing. Inference
// runs many short ops back to back, so waiting threads first spin a few tens of microseconds
// before sleeping; sleeping at once costs a futex wake per op, which measured 5x slower than
// one thread on a small model.
//
// A chunk is claimed (per generation) by its worker or, once the caller is done with its own,
// by the caller: on a shared machine a worker may not run for milliseconds (its core lent to
// another guest or process), and a caller that waited for it would stall the whole op; it runs
// the late worker's chunk itself instead, as ONNX Runtime's pool revokes work not yet begun.
// The caller waits only for chunks a worker has begun. A worker that was spinning claims its
// chunk within nanoseconds of the job, so one that has not by then was not running: its chunk
// is taken at once. A sleeping worker's chunk only after kWakeGrace, about a futex wake's
// latency: the first op after an idle gap would otherwise run mostly on the caller (on many
// cores, most of the op serially). With a busy loop on the second of 2 cores, MobileNetV2 224
// took 48-55 ms a median with a caller that waited, 19-22 taking every late chunk at once,
// 22-24 with this 50 us grace for sleepers (200 us: 30-34).
struct ThreadPool::State {
  std::mutex mutex;
  std::condition_variable wake;
  std::condition_variable done;
  std::vector<std::thread> workers;
  const std::function<void(int64_t, int64_t)>* job = nullptr;
  int64_t n = 0;
  int64_t chunk = 0;
  std::atomic<uint64_t> generation{0};
  std::unique_ptr<std::atomic<uint64_t>[]> claimed;  // per chunk: the generation it last ran in
  std::unique_ptr<std::atomic<bool>[]> asleep;       // per worker: waiting on `wake`
  std::atomic<int> pending{0};                        // chunks 1.. not yet run this generation
  std::atomic<bool> stop{false};
  std::atomic<bool> busy{false};  // one parallelFor publishes a job at a time

  // Runs chunk w of generation g unless someone has claimed it; the job's fields are read
  // only after the claim, when they are g's (the next job waits for this chunk).
  void runChunk(int64_t w, uint64_t g, bool notify) {
    uint64_t last = claimed[w].load(std::memory_order_acquire);
    if (last >= g || !claimed[w].compare_exchange_strong(last, g, std::memory_order_acq_rel)) return;
    const int64_t begin = w * chunk;
    const int64_t end = std::min(n, begin + chunk);
    if (begin < end) (*job)(begin, end);
    if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1 && notify) {
      std::lock_guard<std::mutex> lock(mutex);  // pairs with the caller's wait
      done.notify_one();
    }
  }
};

namespace {
constexpr int kSpinIterations = 20000;  // ~tens of microseconds of pause instructions
constexpr auto kWakeGrace = std::chrono::microseconds(50);  // for a sleeping worker to claim its chunk
}

ThreadPool::ThreadPool(int threads) : threads_(std::max(1, threads)), state_(new State) {
  state_->claimed.reset(new std::atomic<uint64_t>[threads_]);
  state_->asleep.reset(new std::atomic<bool>[threads_]);
  for (int w = 0; w < threads_; ++w) {
    state_->claimed[w].store(0, std::memory_order_relaxed);
    state_->asleep[w].store(false, std::memory_order_relaxed);
  }
  for (int w = 1; w < threads_; ++w) {
    state_->workers.emplace_back([this, w] {
      State& s = *state_;
      uint64_t seen = 0;
      for (;;) {
        uint64_t g = s.generation.load(std::memory_order_acquire);
        for (int i = 0; i < kSpinIterations && g == seen && !s.stop.load(std::memory_order_relaxed); ++i) {
          TESSERA_CPU_RELAX();
          g = s.generation.load(std::memory_order_acquire);
        }
        if (g == seen) {
          std::unique_lock<std::mutex> lock(s.mutex);
          s.asleep[w].store(true, std::memory_order_relaxed);
          s.wake.wait(lock, [&] { return s.stop.load() || s.generation.load() != seen; });
          s.asleep[w].store(false, std::memory_order_relaxed);
          g = s.generation.load(std::memory_order_acquire);
        }
        if (s.stop.load()) return;
        seen = g;
        s.runChunk(w, g, true);
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
  State& s = *state_;
  // The pool holds one job at a time. A second caller (another thread, or a kernel's
  // function calling parallelFor again from inside a job) runs its loop inline instead of
  // overwriting the job in flight or waiting on it.
  bool idle = false;
  if (!s.busy.compare_exchange_strong(idle, true, std::memory_order_acquire)) {
    fn(0, n);
    return;
  }
  struct Release {
    std::atomic<bool>& busy;
    ~Release() { busy.store(false, std::memory_order_release); }
  } release{s.busy};
  const int64_t chunk = (n + threads_ - 1) / threads_;
  uint64_t g = 0;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.job = &fn;
    s.n = n;
    s.chunk = chunk;
    s.pending.store(threads_ - 1, std::memory_order_relaxed);
    g = s.generation.fetch_add(1, std::memory_order_release) + 1;
  }
  s.wake.notify_all();
  fn(0, std::min(n, chunk));
  for (int w = 1; w < threads_; ++w)  // awake workers that have not begun: not running
    if (!s.asleep[w].load(std::memory_order_relaxed)) s.runChunk(w, g, false);
  const auto graceEnd = std::chrono::steady_clock::now() + kWakeGrace;
  while (s.pending.load(std::memory_order_acquire) != 0 && std::chrono::steady_clock::now() < graceEnd)
    for (int i = 0; i < 64; ++i) TESSERA_CPU_RELAX();
  for (int w = 1; w < threads_; ++w) s.runChunk(w, g, false);  // sleepers that have not woken
  for (int i = 0; i < kSpinIterations && s.pending.load(std::memory_order_acquire) != 0; ++i) TESSERA_CPU_RELAX();
  if (s.pending.load(std::memory_order_acquire) != 0) {
    std::unique_lock<std::mutex> lock(s.mutex);
    s.done.wait(lock, [&] { return s.pending.load() == 0; });
  }
}

}  // namespace tessera
