// Plans offsets of DYNAMIC tensors in one arena: acquire in execution order, release after
// the last use, best-fit reuse of freed blocks. The peak is what the arena must hold.
#pragma once
#include <cstddef>
#include <map>

namespace tessera {

class MemoryPlanner {
 public:
  struct Block {
    size_t offset = 0;
    size_t size = 0;
  };
  static constexpr size_t kAlignment = 64;

  void reset();
  Block acquire(size_t bytes);
  void release(const Block& b);
  size_t peakBytes() const { return peak_; }

 private:
  std::multimap<size_t, size_t> freeBySize_;  // size -> offset
  std::map<size_t, size_t> freeByOffset_;     // offset -> size (for merging neighbours)
  size_t end_ = 0;
  size_t peak_ = 0;
};

}  // namespace tessera
