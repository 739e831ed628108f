// The base of every OpenCL execution: kernels are created, given their arguments and their
// (tuned) work sizes in onResize; onExecute only enqueues them in order.
#pragma once
#include <CL/cl.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "backends/opencl/KernelSource.hpp"
#include "backends/opencl/OpenClBackend.hpp"
#include "tessera/Backend.hpp"

namespace tessera {

// Build options of one kernel variant: -D defines, including the storage of each NC4HW4
// argument (-D<name>_STORAGE=IMAGE|BUFFER).
class KernelOptions {
 public:
  KernelOptions& define(const std::string& name, const std::string& value = "1") {
    text_ += " -D" + name + "=" + value;
    return *this;
  }
  KernelOptions& define(const std::string& name, long long value) { return define(name, std::to_string(value)); }
  // A float as an OpenCL C literal that reads back exactly (hexadecimal, or INFINITY/NAN).
  KernelOptions& defineFloat(const std::string& name, float value) { return define(name, clFloatLiteral(value)); }
  static std::string clFloatLiteral(float value);
  KernelOptions& storage(const std::string& argName, const Tensor* t);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// One kernel of an execution, with its arguments set once at planning time.
class ClKernel {
 public:
  ClKernel() = default;
  ~ClKernel() { if (kernel_) clReleaseKernel(kernel_); }
  ClKernel(const ClKernel&) = delete;
  ClKernel& operator=(const ClKernel&) = delete;

  template <typename T>
  ClKernel& arg(const T& v) { return setArg(sizeof(T), &v); }
  ClKernel& arg(int64_t v) { return arg(static_cast<cl_int>(v)); }
  ClKernel& arg(double v) { return arg(static_cast<cl_float>(v)); }
  ClKernel& mem(cl_mem m) { return setArg(sizeof(cl_mem), &m); }
  ClKernel& tensor(const Tensor* t) { return mem(OpenClBackend::storage(t)->mem); }

  cl_kernel get() const { return kernel_; }
  const opencl::WorkSize& work() const { return work_; }

 private:
  friend class OpenClExecution;
  ClKernel& setArg(size_t size, const void* p);
  cl_kernel kernel_ = nullptr;
  std::string name_;
  std::string label_;  // for profiles: node label and kernel name
  std::string tuneKey_;
  cl_uint next_ = 0;
  cl_int error_ = CL_SUCCESS;
  cl_uint failedArg_ = 0;
  opencl::WorkSize work_;
};

class OpenClExecution : public Execution {
 public:
  explicit OpenClExecution(Backend* b) : Execution(b) {}
  OpenClBackend* cl() const { return openclBackend(*this); }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override;
  // Its kernels' summed device time in the last run, when the backend profiles.
  bool deviceTimeMs(double* ms) const override;
  // The node label ("Conv 'c1'"), shown in profiles.
  void setLabel(std::string l) { label_ = std::move(l); }

 protected:
  // A new kernel (planning time): build or fetch its program, create it. Set its args, then
  // call dispatch() to fix its global size (and tune its local size).
  Status addKernel(const opencl::KernelId& id, const KernelOptions& options, ClKernel** out);
  Status dispatch(ClKernel* k, std::initializer_list<int64_t> global, bool tune = true);
  // `groups` work-groups of `local` items each, for kernels whose items cooperate (a
  // work-group reduction): global (groups * local), 1-D, not tuned.
  Status dispatchGroups(ClKernel* k, int64_t groups, size_t local);
  // Whether a line reduction gives each of `lines` lines of `length` a work-group of
  // `groupSize` items (groupPerLine, core/src/SplitReduction.hpp; TESSERA_OPENCL_GROUP_LINES),
  // where the device allows groups that large; else an item a line.
  bool groupLines(int64_t length, int64_t lines, size_t groupSize) const;
  // Dispatch over an NC4HW4 tensor's pixels (x: width, y: height).
  Status dispatchNc4(ClKernel* k, const Nc4Geometry& g) { return dispatch(k, {g.width(), g.height()}); }
  void clearKernels() { kernels_.clear(); }

  std::vector<std::unique_ptr<ClKernel>> kernels_;
  std::string label_;
  size_t profileBegin_ = 0, profileEnd_ = 0;  // its kernels' entries in the backend's profile
};

// An execution of type E for `node`, labelled with the node.
template <class E, class... Args>
std::unique_ptr<Execution> makeExecution(Backend* b, const Node& node, Args&&... args) {
  auto e = std::make_unique<E>(b, std::forward<Args>(args)...);
  e->setLabel(node.label());
  return e;
}

inline bool isNc4(const Tensor* t) { return t && t->layout() == Layout::kNC4HW4; }

// Layout helpers for selectLayouts: every input in `l`, every output in `l`.
void allLayouts(Layout l, const std::vector<Layout>& available, std::vector<Layout>* in,
                std::vector<Layout>* out);

}  // namespace tessera
