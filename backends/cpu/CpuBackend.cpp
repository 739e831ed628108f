#include "backends/cpu/CpuBackend.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <thread>

#include "backends/cpu/CpuIsa.hpp"
#include "backends/cpu/SpatialBands.hpp"
#include "tessera/Registry.hpp"

namespace tessera {

namespace {
std::string cpuModelName() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      auto p = line.find(':');
      if (p != std::string::npos) return line.substr(p + 2);
    }
  return "CPU";
}
}  // namespace

CpuBackend::CpuBackend(const BackendOptions& options)
    : Backend(BackendType::kCPU), pool_(std::make_unique<ThreadPool>(options.threads)) {}

CpuBackend::~CpuBackend() = default;

std::string CpuBackend::deviceName() const { return cpuModelName(); }

std::unique_ptr<Execution> CpuBackend::onCreate(const Node& node, const Tensors& inputs,
                                                const Tensors& outputs) {
  const ExecutionCreator* c = ExecutionRegistry::instance().find(BackendType::kCPU, node.opType);
  if (!c) return nullptr;
  return (*c)(this, node, inputs, outputs);
}

Status CpuBackend::onAcquireBuffer(Tensor* t, StorageType storage) {
  if (storage == StorageType::kStatic) {
    const size_t bytes = t->byteSize();
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (!p) return Status::outOfMemory("CPU: cannot allocate " + std::to_string(bytes) +
                                       " bytes for tensor " + t->describe());
    t->setHostData(p, std::shared_ptr<void>(p, [](void* q) { std::free(q); }));
    t->setDevice(this, nullptr);
    return Status::ok();
  }
  MemoryPlanner::Block b = planner_.acquire(t->byteSize());
  dynamicTensors_.push_back({t, b});
  t->setHostData(nullptr);  // resolved in onResizeEnd, once the arena exists
  t->setDevice(this, nullptr);
  return Status::ok();
}

Status CpuBackend::onReleaseBuffer(Tensor* t, StorageType storage) {
  if (storage == StorageType::kStatic) {
    t->setHostData(nullptr);
    return Status::ok();
  }
  for (auto it = dynamicTensors_.rbegin(); it != dynamicTensors_.rend(); ++it)
    if (it->first == t) {
      planner_.release(it->second);
      return Status::ok();
    }
  return Status::internal("CPU: releasing tensor " + t->describe() + " that was never acquired");
}

bool CpuBackend::onShareBuffer(Tensor* t, const Tensor* from) {
  for (auto it = dynamicTensors_.rbegin(); it != dynamicTensors_.rend(); ++it)
    if (it->first == from) {
      const MemoryPlanner::Block b = it->second;  // push_back may move the entry
      dynamicTensors_.push_back({t, b});
      t->setHostData(nullptr);  // resolved in onResizeEnd, with its owner
      t->setDevice(this, nullptr);
      return true;
    }
  return false;
}

void CpuBackend::onClearBuffers() {
  dynamicTensors_.clear();
  planner_.reset();
}

void CpuBackend::onResizeBegin() { onClearBuffers(); }

namespace {
// A plan's memory plan: where its tensors lie in the backend's arena.
struct CpuPlanState final : Backend::PlanState {
  MemoryPlanner planner;
  std::vector<std::pair<Tensor*, MemoryPlanner::Block>> dynamicTensors;
};
}  // namespace

std::unique_ptr<Backend::PlanState> CpuBackend::onSavePlan() {
  auto s = std::make_unique<CpuPlanState>();
  s->planner = std::move(planner_);
  s->dynamicTensors = std::move(dynamicTensors_);
  onClearBuffers();
  return s;
}

void CpuBackend::onRestorePlan(std::unique_ptr<PlanState> state) {
  auto* s = static_cast<CpuPlanState*>(state.get());
  planner_ = std::move(s->planner);
  dynamicTensors_ = std::move(s->dynamicTensors);
  // The arena may have grown (and moved) since this plan was made; it is never smaller.
  for (auto& tb : dynamicTensors_) tb.first->setHostData(static_cast<uint8_t*>(arena_.get()) + tb.second.offset);
}

Status CpuBackend::onResizeEnd() {
  const size_t bytes = planner_.peakBytes();
  if (!arena_ || arenaBytes_ < bytes) {
    void* p = std::aligned_alloc(64, bytes / 64 * 64 + 64);
    if (!p) return Status::outOfMemory("CPU: cannot allocate the " + std::to_string(bytes) +
                                       "-byte arena for intermediate tensors");
    arena_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
    arenaBytes_ = bytes;
  }
  for (auto& tb : dynamicTensors_)
    tb.first->setHostData(static_cast<uint8_t*>(arena_.get()) + tb.second.offset);
  return Status::ok();
}

Status CpuBackend::reserveStepScratch(int64_t floats, const std::string& forWhat) {
  if (floats <= static_cast<int64_t>(stepScratch_.size())) return Status::ok();
  try {
    stepScratch_.resize(static_cast<size_t>(floats));
  } catch (const std::bad_alloc&) {
    return Status::outOfMemory("CPU: cannot allocate " + std::to_string(floats * sizeof(float)) +
                               " bytes of scratch for " + forWhat);
  }
  return Status::ok();
}

Status CpuBackend::onCopyBuffer(const Tensor* src, Tensor* dst) {
  if (!src->data() || !dst->data())
    return Status::internal("CPU copy: tensor without host memory (" + src->describe() + " -> " +
                            dst->describe() + ")");
  if (src->shape() != dst->shape())
    return Status::internal("CPU copy: shapes differ (" + src->describe() + " -> " + dst->describe() + ")");
  if (src->dtype() == dst->dtype()) {
    // NCHW <-> NC4HW4 of a large tensor (a model's input or output) over the pool's threads:
    // in bands of rows where the kernels split the image so (SpatialBands.hpp), else in pieces
    // of channel blocks.
    const int64_t pieces = layoutPieces(*src, *dst);
    const Shape& s = src->shape();
    SpatialBands bands;
    int64_t rowPixels = 0;
    if (s.size() >= 3 && pieces > 1) {  // not empty: pieces counts blocks of pixels
      rowPixels = elementCount(s) / (s[0] * s[1] * s[2]);
      const int64_t pixelBytes = dataTypeSize(dst->dtype()) * (dst->layout() == Layout::kNC4HW4 ? 4 : 1);
      bands = spatialBands(s[2], rowPixels, pixelBytes, pool_->threads());
    }
    if (bands.count > 1 && dst->byteSize() >= (size_t(1) << 18)) {
      pool_->parallelFor(s[0] * bands.count, [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
          const int64_t n = t / bands.count, b = t % bands.count;
          convertLayoutBand(*src, *dst, n, bands.row(b) * rowPixels, bands.row(b + 1) * rowPixels);
        }
      });
      return Status::ok();
    }
    if (pieces > 1 && pool_->threads() > 1 && dst->byteSize() >= (size_t(1) << 18)) {
      pool_->parallelFor(pieces, [&](int64_t begin, int64_t end) { convertLayoutPieces(*src, *dst, begin, end); });
      return Status::ok();
    }
    convertLayout(*src, *dst);
    return Status::ok();
  }
  if (src->layout() != Layout::kNCHW || dst->layout() != Layout::kNCHW)
    return Status::unsupported("CPU copy: dtype and layout change at once");
  if (!convertDataType(*src, *dst))
    return Status::unsupported("CPU copy: cannot convert " + src->describe() + " to " + dst->describe());
  return Status::ok();
}

namespace {
BackendRegistrar registerCpu(BackendFactory{
    BackendType::kCPU,
    [](const BackendOptions& o, std::unique_ptr<Backend>* out) {
      *out = std::make_unique<CpuBackend>(o);
      return Status::ok();
    },
    [] {
      return "cpu: " + cpuModelName() + " (" + std::to_string(std::thread::hardware_concurrency()) +
             " hardware threads; kernels: " + cpuIsaName(cpuIsa()) +
             ", force with TESSERA_CPU_ISA=avx512|avx2|generic)";
    }});
}  // namespace

}  // namespace tessera
