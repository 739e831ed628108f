#include "backends/cpu/PackedConstants.hpp"

#include <algorithm>

namespace tessera {

PackedConstants::Packed PackedConstants::get(const std::vector<const Tensor*>& sources, const std::string& key,
                                             size_t floats, const std::function<void(float*)>& pack) {
  std::vector<const void*> addresses;
  Entry entry;
  for (const Tensor* t : sources) {
    if (!t) {
      addresses.push_back(nullptr);
      continue;
    }
    if (!t->isConstant() || !t->data() || !t->hostOwner()) return nullptr;
    addresses.push_back(t->data());
    entry.sources.push_back(t->hostOwner());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  // Entries whose sources nothing else holds any more (constants folded by a plan the
  // Session has dropped) can never be asked for again: drop them, so a long-lived Session
  // fed ever new shapes does not grow. Executions still using a packed copy keep it alive.
  for (auto it = entries_.begin(); it != entries_.end();) {
    bool orphan = false;
    for (const auto& s : it->second.sources) orphan = orphan || s.use_count() == 1;
    if (!orphan) {
      ++it;
      continue;
    }
    bytes_ -= it->second.packed->size() * sizeof(float);
    it = entries_.erase(it);
  }
  auto found = entries_.find({addresses, key});
  if (found != entries_.end()) return found->second.packed;
  entry.packed = std::make_shared<AlignedFloats>(floats, 0.f);
  pack(entry.packed->data());
  bytes_ += floats * sizeof(float);
  ++packings_;
  Packed packed = entry.packed;
  entries_.emplace(std::make_pair(std::move(addresses), key), std::move(entry));
  return packed;
}

uint64_t PackedConstants::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

uint64_t PackedConstants::packings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return packings_;
}

void PackedWeights::plan(PackedConstants& cache, const std::vector<const Tensor*>& sources, const std::string& key,
                         size_t floats, Pack pack) {
  shared_ = cache.get(sources, key, floats, pack);
  own_.clear();
  pack_ = nullptr;
  if (!shared_) {
    own_.assign(floats, 0.f);
    pack_ = std::move(pack);
  }
}

const float* PackedWeights::get() {
  if (shared_) return shared_->data();
  pack_(own_.data());
  return own_.data();
}

}  // namespace tessera
