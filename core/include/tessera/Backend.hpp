// Backend and Execution: the two interfaces every device implements (see docs/ARCHITECTURE.md).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

using Tensors = std::vector<Tensor*>;

enum class BackendType : uint8_t { kCPU = 0, kOpenCL = 1, kVulkan = 2 };
const char* backendTypeName(BackendType t);  // "cpu", "opencl", "vulkan"
bool parseBackendType(const std::string& s, BackendType* out);

enum class Precision : uint8_t { kFP32, kFP16 };

// What kind of device a backend drives. `--backend auto` uses GPU backends only on GPUs: a
// Vulkan or OpenCL driver that runs on the CPU (lavapipe, PoCL) is slower than the CPU
// backend, so it is used only when asked for by name.
enum class DeviceKind : uint8_t { kCPU, kIntegratedGPU, kDiscreteGPU, kOther };

enum class StorageType : uint8_t {
  kStatic,   // lives as long as the session's plan (weights, graph outputs)
  kDynamic,  // intermediate: released after its last consumer so memory is reused
};

class Backend;
class ThreadPool;

// What one execution does per run, for profiles: GFLOP/s and GB/s next to its time.
struct WorkEstimate {
  double flops = 0;  // arithmetic operations (a multiply-add counts 2)
  double bytes = 0;  // bytes read and written
};

// One op on one backend. onResize does all shape-dependent work (scratch, work sizes,
// GPU command recording); onExecute only runs.
class Execution {
 public:
  explicit Execution(Backend* backend) : backend_(backend) {}
  virtual ~Execution() = default;
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;

  // Layout negotiation (PPL.NN's "select format"): given the layouts the inputs are
  // currently in, say which layouts this execution wants for its inputs and which it
  // produces. The Session inserts conversions where they differ. Default: all NCHW.
  virtual void selectLayouts(const std::vector<Layout>& available, const Tensors& inputs,
                             std::vector<Layout>* inputLayouts,
                             std::vector<Layout>* outputLayouts) const;

  // Data type negotiation (PPL.NN's "select data type"): given the graph's dtype of each
  // input (kUnknown for an omitted one) and of each output, say which dtype this execution
  // reads and which it writes. Where they differ from the graph's, the Session converts on
  // the host (inputs before, outputs for their consumers after). Default: the graph's.
  virtual void selectDataTypes(const std::vector<DataType>& available, const Tensors& inputs,
                               std::vector<DataType>* inputTypes, std::vector<DataType>* outputTypes) const {
    (void)available; (void)inputs; (void)inputTypes; (void)outputTypes;
  }

  // True when input `input`, if constant, is read from host memory by this execution (packed
  // or uploaded in its own way while planning): the Session then hands it the host tensor
  // and inserts no upload for it. Default: every input on the execution's backend.
  virtual bool readsConstantOnHost(size_t input) const { (void)input; return false; }

  virtual Status onResize(const Tensors& inputs, const Tensors& outputs) {
    (void)inputs; (void)outputs;
    return Status::ok();
  }
  virtual Status onExecute(const Tensors& inputs, const Tensors& outputs) = 0;

  // True when output 0 is input 0's bytes unchanged (Reshape, Flatten, Squeeze, Unsqueeze):
  // the Session may then give both one storage (Backend::onShareBuffer), and onResize and
  // onExecute must move nothing when they find it shared.
  virtual bool outputIsInputBytes() const { return false; }

  // True when this execution reads input `input` only in onExecute, through the tensor it is
  // handed there (no pointer to its data kept from onResize), and never writes it: the Session
  // may then hand it the caller's own tensor for a graph input instead of a copy of it (a CPU
  // conv on an image). Default: false.
  virtual bool readsInputInPlace(size_t input) const { (void)input; return false; }

  // The work per run. Default: no arithmetic counted; bytes = inputs read + outputs written.
  // Compute-heavy ops (conv, gemm, matmul) override it with their multiply-adds.
  virtual WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const;

  // A GPU execution that timed itself on the device (timestamp queries, event profiling)
  // reports the last run's device time here; the profile prefers it over host time.
  virtual bool deviceTimeMs(double* ms) const { (void)ms; return false; }

  Backend* backend() const { return backend_; }

 private:
  Backend* backend_;
};

// Where a GPU backend keeps NC4HW4 tensors: 2-D images or buffers (which is faster differs
// per device and driver). kAuto: TESSERA_<BACKEND>_NC4_STORAGE if set, else the faster of
// the two on a small conv net, measured once per device, driver and precision and cached.
// Tensors past the image limits are buffers whatever is chosen.
enum class Nc4Storage { kAuto, kImage, kBuffer };

struct BackendOptions {
  Precision precision = Precision::kFP32;
  int threads = 1;
  std::string device;  // device selector (index or name substring); empty = default
  Nc4Storage nc4Storage = Nc4Storage::kAuto;  // forced here, it wins over the environment
};

class Backend {
 public:
  explicit Backend(BackendType type) : type_(type) {}
  virtual ~Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  BackendType type() const { return type_; }
  virtual std::string deviceName() const = 0;
  virtual DeviceKind deviceKind() const = 0;

  // An execution for `node`, or nullptr when this backend cannot run it with these
  // inputs (then the Session falls back to the next backend). Shapes are known.
  virtual std::unique_ptr<Execution> onCreate(const Node& node, const Tensors& inputs,
                                              const Tensors& outputs) = 0;

  // Memory: give `t` storage for its shape/dtype/layout. DYNAMIC storage released with
  // onReleaseBuffer may be handed to a later acquire (memory reuse).
  virtual Status onAcquireBuffer(Tensor* t, StorageType storage) = 0;
  virtual Status onReleaseBuffer(Tensor* t, StorageType storage) = 0;
  // Gives DYNAMIC `t` the storage of `from` (DYNAMIC, acquired and not released, the same
  // bytes in the same layout and dtype) for an execution whose output is its input's bytes
  // (Execution::outputIsInputBytes): a reshape then costs no copy, no dispatch and no memory.
  // Returns false, changing nothing, where this backend cannot share (then the Session
  // acquires as usual). The Session releases only `from`, once every tensor sharing its
  // storage is past its last use.
  virtual bool onShareBuffer(Tensor* t, const Tensor* from) {
    (void)t, (void)from;
    return false;
  }
  // Drops all DYNAMIC storage (before re-planning).
  virtual void onClearBuffers() = 0;

  // Copies between a tensor of this backend and a host tensor (either direction), or
  // between two tensors of this backend, converting layout (and dtype where needed).
  // Immediate: used for one-off transfers outside a planned run.
  virtual Status onCopyBuffer(const Tensor* src, Tensor* dst) = 0;

  // A planned copy step from `src` to `dst` (one of them on this backend, the other on this
  // backend or on the CPU/host). Like any execution, it prepares in onResize (staging
  // buffers, recorded commands) and only transfers in onExecute. The default calls
  // onCopyBuffer at execute time, which suits host memory.
  virtual std::unique_ptr<Execution> onCreateCopy(const Tensor* src, Tensor* dst);

  // Planning brackets: onResizeBegin before any acquire (drop the old plan), onResizeEnd
  // after every execution's onResize.
  virtual void onResizeBegin() {}
  virtual Status onResizeEnd() { return Status::ok(); }

  // Segments: the Session splits its plan into segments, maximal runs of consecutive steps
  // on one backend (the whole plan when nothing falls back). While planning it calls
  // onSegmentBegin(i) before the onResize of segment i's first step and onSegmentEnd(i)
  // after its last, so a GPU backend records segment i's commands once. While running it
  // calls onExecuteBegin(i) before the segment's onExecute calls and onExecuteEnd(i) after:
  // a GPU backend submits segment i there and waits, so the next segment (on another
  // backend) sees its results. Segment indices are global to the plan and increasing.
  virtual void onSegmentBegin(int segment) { (void)segment; }
  virtual Status onSegmentEnd(int segment) { (void)segment; return Status::ok(); }
  virtual void onExecuteBegin(int segment) { (void)segment; }
  virtual Status onExecuteEnd(int segment) { (void)segment; return Status::ok(); }

  // Profiling switched on or off (between runs): a GPU backend starts or stops timing its
  // work on the device (Execution::deviceTimeMs).
  virtual Status onSetProfiling(bool on) { (void)on; return Status::ok(); }
  // Whether this backend's plans are made for one profiling state, so that switching it
  // makes the Session plan again (Vulkan records its timestamp queries into the command
  // buffers a plan replays: an H200 ran the PaddleOCR models 0.25-0.45 ms faster without).
  virtual bool plansDependOnProfiling() const { return false; }

  // Compute dispatches, for profiles: running counts of what this backend puts on the device.
  // Recorded ones go into command buffers that every run replays (Vulkan's vkCmdDispatch, so
  // they grow while a step's onResize records); enqueued ones are issued as the run goes
  // (OpenCL's kernel enqueues, growing during onExecute). The CPU has none.
  virtual uint64_t recordedDispatches() const { return 0; }
  virtual uint64_t enqueuedDispatches() const { return 0; }

  // Bytes of DYNAMIC memory the last plan needs at its peak.
  virtual size_t plannedPeakBytes() const { return 0; }
  // Bytes of DYNAMIC memory that every plan shares (0: each plan has its own, counted per
  // plan from plannedPeakBytes).
  virtual uint64_t sharedPlanBytes() const { return 0; }

  // Plan caching (SessionOptions::planCacheSize): a backend that can set its per-plan state
  // (memory arenas, recorded commands) aside says so; the Session then takes that state
  // with onSavePlan after a plan was made, keeps it with the plan, and gives it back with
  // onRestorePlan when the same input shapes come again, instead of planning anew. After
  // onSavePlan the backend holds no plan (as after onResizeBegin); a saved state it never
  // gets back is destroyed with the cache entry and must free what it holds.
  struct PlanState {
    virtual ~PlanState() = default;
  };
  virtual bool canSavePlans() const { return false; }
  virtual std::unique_ptr<PlanState> onSavePlan() { return nullptr; }
  virtual void onRestorePlan(std::unique_ptr<PlanState> state) { (void)state; }
  // Constant weights packed once for the Session and shared by all its plans: how many
  // packings were made and the bytes they hold (the CPU's PackedConstants).
  virtual uint64_t sharedConstantPackings() const { return 0; }
  virtual uint64_t sharedConstantBytes() const { return 0; }
  // Threads for the Session's host copies into and out of this backend's host tensors (the
  // CPU's pool: a 4.9 MB input is 0.3 ms on one core), or null for one thread.
  virtual ThreadPool* hostThreads() { return nullptr; }

 private:
  BackendType type_;
};

}  // namespace tessera
