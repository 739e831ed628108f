#include "backends/cpu/MemoryPlanner.hpp"

#include <algorithm>

namespace tessera {

void MemoryPlanner::reset() {
  freeBySize_.clear();
  freeByOffset_.clear();
  end_ = 0;
  peak_ = 0;
}

MemoryPlanner::Block MemoryPlanner::acquire(size_t bytes) {
  const size_t size = std::max<size_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
  auto it = freeBySize_.lower_bound(size);  // best fit: the smallest free block that holds it
  if (it != freeBySize_.end()) {
    const size_t blockSize = it->first, offset = it->second;
    freeBySize_.erase(it);
    freeByOffset_.erase(offset);
    if (blockSize > size) {  // return the tail to the free lists
      freeBySize_.emplace(blockSize - size, offset + size);
      freeByOffset_[offset + size] = blockSize - size;
    }
    return {offset, size};
  }
  // No block fits: grow the arena (absorbing a free block that ends at the top).
  size_t offset = end_;
  if (!freeByOffset_.empty()) {
    auto last = std::prev(freeByOffset_.end());
    if (last->first + last->second == end_) {
      offset = last->first;
      auto range = freeBySize_.equal_range(last->second);
      for (auto s = range.first; s != range.second; ++s)
        if (s->second == offset) { freeBySize_.erase(s); break; }
      freeByOffset_.erase(last);
    }
  }
  end_ = offset + size;
  peak_ = std::max(peak_, end_);
  return {offset, size};
}

void MemoryPlanner::release(const Block& b) {
  size_t offset = b.offset, size = b.size;
  auto eraseBySize = [&](size_t sz, size_t off) {
    auto range = freeBySize_.equal_range(sz);
    for (auto s = range.first; s != range.second; ++s)
      if (s->second == off) { freeBySize_.erase(s); return; }
  };
  auto next = freeByOffset_.find(offset + size);  // merge with the following free block
  if (next != freeByOffset_.end()) {
    size += next->second;
    eraseBySize(next->second, next->first);
    freeByOffset_.erase(next);
  }
  auto prev = freeByOffset_.lower_bound(offset);  // and with the preceding one
  if (prev != freeByOffset_.begin()) {
    --prev;
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      eraseBySize(prev->second, prev->first);
      freeByOffset_.erase(prev);
    }
  }
  freeBySize_.emplace(size, offset);
  freeByOffset_[offset] = size;
}

}  // namespace tessera
