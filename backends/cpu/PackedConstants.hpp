// Constant weights in a kernel's packed order, made once per Session and shared by every
// plan: when a new input shape re-plans a Conv, MatMul or Gemm, its weights are found
// already packed (the plan cache, docs/ARCHITECTURE.md, keeps several plans at once).
//
// An entry is keyed by the source tensors' host memory and a text naming the packing (the op
// and every size that decides the packed form), and keeps the sources' memory alive, so an
// address cannot be reused for other contents while its entry lives; an entry whose sources
// nothing else holds (a constant folded by a dropped plan) is dropped. Sources that do not
// own their memory are not shared: the caller packs into a buffer of its own.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/cpu/CacheAligned.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

class PackedConstants {
 public:
  using Packed = std::shared_ptr<const AlignedFloats>;

  // The packing `key` of `sources` (constant, in host memory): `floats` floats, zeroed, then
  // filled by `pack` the first time. nullptr when a source does not own its memory.
  Packed get(const std::vector<const Tensor*>& sources, const std::string& key, size_t floats,
             const std::function<void(float*)>& pack);

  uint64_t bytes() const;     // of every packed copy held
  uint64_t packings() const;  // how many were made (each once, unless its entry was dropped)

 private:
  struct Entry {
    std::vector<std::shared_ptr<void>> sources;  // keeps the keyed addresses alive
    std::shared_ptr<AlignedFloats> packed;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::vector<const void*>, std::string>, Entry> entries_;
  uint64_t bytes_ = 0, packings_ = 0;
};

// Weights an execution multiplies by: the Session's shared packed copy when they are
// constant, else a buffer of the execution's own, repacked on every run.
class PackedWeights {
 public:
  using Pack = std::function<void(float*)>;
  // At resize. `pack` fills `floats` zeroed floats from the weights as they are when called.
  void plan(PackedConstants& cache, const std::vector<const Tensor*>& sources, const std::string& key,
            size_t floats, Pack pack);
  // At execute: packs now unless the weights are constant.
  const float* get();
  bool shared() const { return shared_ != nullptr; }

 private:
  PackedConstants::Packed shared_;
  AlignedFloats own_;
  Pack pack_;
};

}  // namespace tessera
