// Large host copies split over a thread pool. A GPU backend's uploads and downloads memcpy
// whole tensors between the caller's memory and mapped staging memory; one core copies
// about 8 GB/s (an H200's host: 0.58 ms of det 640's 3.2 ms went to its 4.9 MB input),
// several copy at the memory's rate.
#pragma once
#include <cstddef>

namespace tessera {

class ThreadPool;

// memcpy(dst, src, bytes), in pieces of at least 256 KiB over `pool` (null: one thread).
void copyBytes(ThreadPool* pool, void* dst, const void* src, size_t bytes);

}  // namespace tessera
