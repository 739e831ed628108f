// Buffers whose first element starts a 64-byte cache line. The CPU kernels read packed
// weights and scratch tiles in 64-byte vectors at multiples of 64 bytes from a buffer's
// start; in a std::vector (16-byte aligned by malloc) three of four placements split every
// such load over two lines. Which one a buffer got depended on the heap: a 16 -> 96 1x1 conv
// at 112x112 took 0.27 ms or 0.52 ms (one thread) depending on whether the model held an
// unused initializer, which moved its packed weights by 16 bytes.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace tessera {

constexpr size_t kCacheLine = 64;

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) {
    const size_t bytes = (n * sizeof(T) + kCacheLine - 1) / kCacheLine * kCacheLine;
    void* p = std::aligned_alloc(kCacheLine, bytes ? bytes : kCacheLine);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const CacheLineAllocator<U>&) const { return false; }
};

using AlignedFloats = std::vector<float, CacheLineAllocator<float>>;

}  // namespace tessera
