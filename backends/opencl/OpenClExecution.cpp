#include "backends/opencl/OpenClExecution.hpp"

#include <cmath>
#include <cstdio>

#include "core/src/SplitReduction.hpp"

namespace tessera {

// Hexadecimal floats are exact and valid OpenCL C (C99) whatever the value: "%g" printed 0
// and 6 as "0f" and "6f", which are not literals. Parenthesised so a negative value stays
// one operand wherever the macro is used.
std::string KernelOptions::clFloatLiteral(float value) {
  if (std::isnan(value)) return "(NAN)";
  if (std::isinf(value)) return value > 0 ? "(INFINITY)" : "(-INFINITY)";
  char text[48];
  std::snprintf(text, sizeof text, "(%af)", static_cast<double>(value));
  return text;
}

KernelOptions& KernelOptions::storage(const std::string& argName, const Tensor* t) {
  const ClStorage* s = OpenClBackend::storage(t);
  return define(argName + "_STORAGE", s && s->image ? "IMAGE" : "BUFFER");
}

ClKernel& ClKernel::setArg(size_t size, const void* p) {
  const cl_int err = clSetKernelArg(kernel_, next_, size, p);
  if (err != CL_SUCCESS && error_ == CL_SUCCESS) {
    error_ = err;
    failedArg_ = next_;
  }
  ++next_;
  return *this;
}

Status OpenClExecution::addKernel(const opencl::KernelId& id, const KernelOptions& options,
                                  ClKernel** out) {
  auto k = std::make_unique<ClKernel>();
  // No fast-math flags: the CPU reference keeps IEEE inf/nan semantics and so do we.
  // FLOAT names the NC4HW4 image storage precision (arithmetic is fp32 either way).
  const std::string text = std::string(cl()->halfImages() ? "-DFLOAT=half -DTCL_HALF_IMAGES" : "-DFLOAT=float") + options.text();
  TESSERA_RETURN_IF_ERROR(cl()->runtime().programs().kernel(id, text, &k->kernel_).withContext(
      std::string("kernel '") + id.name + "'"));
  k->name_ = id.name;
  k->label_ = label_.empty() ? k->name_ : label_ + " " + k->name_;
  // Tuning results are keyed by the kernel, its options and its program's source hash (and,
  // through the results file, the device and driver): a changed kernel is tuned again.
  k->tuneKey_ = std::string(id.name) + "#" +
                opencl::hex64(opencl::fnv1a64(text, id.program->hash));
  kernels_.push_back(std::move(k));
  *out = kernels_.back().get();
  return Status::ok();
}

Status OpenClExecution::dispatch(ClKernel* k, std::initializer_list<int64_t> global, bool tune) {
  if (k->error_ != CL_SUCCESS)
    return Status::internal(std::string("kernel '") + k->name_ + "': argument " +
                            std::to_string(k->failedArg_) + ": " + opencl::errorName(k->error_));
  opencl::WorkSize w;
  w.dims = static_cast<int>(global.size());
  int i = 0;
  for (int64_t g : global) w.global[i++] = static_cast<size_t>(std::max<int64_t>(1, g));
  k->work_ = w;
  if (tune)
    TESSERA_RETURN_IF_ERROR(cl()->runtime().tuner().tune(cl()->queue(), k->kernel_, k->tuneKey_, &k->work_)
                                .withContext(std::string("kernel '") + k->name_ + "'"));
  return Status::ok();
}

Status OpenClExecution::dispatchGroups(ClKernel* k, int64_t groups, size_t local) {
  TESSERA_RETURN_IF_ERROR(dispatch(k, {groups * static_cast<int64_t>(local)}, false));
  k->work_.local[0] = local;
  return Status::ok();
}

Status OpenClExecution::onExecute(const Tensors&, const Tensors&) {
  profileBegin_ = cl()->profileCursor();
  for (auto& k : kernels_) TESSERA_RETURN_IF_ERROR(cl()->enqueue(k->kernel_, k->work_, k->label_));
  profileEnd_ = cl()->profileCursor();
  return Status::ok();
}

bool OpenClExecution::groupLines(int64_t length, int64_t lines, size_t groupSize) const {
  return groupPerLine(length, lines, cl()->deviceKind(), "TESSERA_OPENCL_GROUP_LINES") &&
         cl()->device().maxWorkGroupSize >= groupSize;
}

bool OpenClExecution::deviceTimeMs(double* ms) const {
  if (!cl()->profiling() || profileEnd_ == profileBegin_) return false;
  *ms = cl()->profileSum(profileBegin_, profileEnd_);
  return true;
}

void allLayouts(Layout l, const std::vector<Layout>& available, std::vector<Layout>* in,
                std::vector<Layout>* out) {
  in->assign(available.size(), l);
  for (auto& o : *out) o = l;
}

}  // namespace tessera
