// The CPU backend: the reference every other backend is checked against. Host memory,
// a thread pool, and a planning allocator that packs DYNAMIC tensors into one arena, which
// every plan of the Session shares.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/MemoryPlanner.hpp"
#include "backends/cpu/PackedConstants.hpp"
#include "tessera/Backend.hpp"
#include "tessera/ThreadPool.hpp"

namespace tessera {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const BackendOptions& options);
  ~CpuBackend() override;

  std::string deviceName() const override;
  DeviceKind deviceKind() const override { return DeviceKind::kCPU; }
  std::unique_ptr<Execution> onCreate(const Node& node, const Tensors& inputs,
                                      const Tensors& outputs) override;
  Status onAcquireBuffer(Tensor* t, StorageType storage) override;
  Status onReleaseBuffer(Tensor* t, StorageType storage) override;
  bool onShareBuffer(Tensor* t, const Tensor* from) override;
  void onClearBuffers() override;
  Status onCopyBuffer(const Tensor* src, Tensor* dst) override;
  void onResizeBegin() override;
  Status onResizeEnd() override;
  size_t plannedPeakBytes() const override { return planner_.peakBytes(); }
  uint64_t sharedPlanBytes() const override { return arenaBytes_ + stepScratch_.size() * sizeof(float); }
  bool canSavePlans() const override { return true; }
  std::unique_ptr<PlanState> onSavePlan() override;
  void onRestorePlan(std::unique_ptr<PlanState> state) override;

  uint64_t sharedConstantPackings() const override { return packedConstants_.packings(); }
  uint64_t sharedConstantBytes() const override { return packedConstants_.bytes(); }
  ThreadPool* hostThreads() override { return pool_.get(); }
  ThreadPool& pool() { return *pool_; }
  PackedConstants& packedConstants() { return packedConstants_; }
  // Scratch memory for one step while it runs (a Session runs one step at a time): a step
  // reserves its size when planned and takes the memory when it runs. Held at the largest
  // reservation of any plan, for the Session's life, and counted in sharedPlanBytes().
  Status reserveStepScratch(int64_t floats, const std::string& forWhat);
  float* stepScratch() { return stepScratch_.data(); }

 private:
  std::unique_ptr<ThreadPool> pool_;
  MemoryPlanner planner_;
  std::vector<std::pair<Tensor*, MemoryPlanner::Block>> dynamicTensors_;
  // Intermediate tensors of every plan, one plan running at a time (Session runs one call at
  // a time): sized for the largest plan so far, so the plans a Session keeps share one arena
  // that stays in cache as input shapes change.
  std::shared_ptr<void> arena_;
  size_t arenaBytes_ = 0;
  PackedConstants packedConstants_;  // shared by every plan of the Session
  AlignedFloats stepScratch_;
};

// The backend that owns an execution (CPU executions only).
inline CpuBackend& cpuBackend(Execution& e) { return *static_cast<CpuBackend*>(e.backend()); }
// The pool of the backend that owns an execution (CPU executions only).
inline ThreadPool& cpuPool(Execution& e) { return static_cast<CpuBackend*>(e.backend())->pool(); }
// The packed-weights cache of the backend that owns an execution (CPU executions only).
inline PackedConstants& cpuPackedConstants(Execution& e) {
  return static_cast<CpuBackend*>(e.backend())->packedConstants();
}

}  // namespace tessera
