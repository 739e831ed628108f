// The public custom-kernel API of the OpenCL backend (tessera/OpenClKernel.hpp): programs from
// run-time sources through the backend's program cache, kernels enqueued on its queue.
#include <algorithm>
#include <cctype>

#include "kernels/headers.hpp"
#include "backends/opencl/OpenClBackend.hpp"
#include "tessera/OpenClKernel.hpp"

namespace tessera {

namespace {

OpenClBackend* asOpenCl(Backend* b) {
  return b && b->type() == BackendType::kOpenCL ? static_cast<OpenClBackend*>(b) : nullptr;
}

// The name under which the program cache stores it (part of a file name): the source hash
// in the key keeps it apart from a built-in program of the same name.
std::string cacheName(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out.empty() ? "custom" : out;
}

// A build log's clang-style positions "<file>:LINE:COLUMN:" shifted back by the `prelude`
// lines put before the user's source, so they count from the user's first line. Done here,
// not with #line: some drivers (NVIDIA's) ignore #line in their logs.
std::string userLineNumbers(const std::string& log, int prelude) {
  std::string out;
  size_t i = 0;
  while (i < log.size()) {
    size_t j = i + 1, k;
    if (log[i] == ':' && j < log.size() && std::isdigit(static_cast<unsigned char>(log[j]))) {
      while (j < log.size() && std::isdigit(static_cast<unsigned char>(log[j]))) ++j;
      for (k = j + 1; k < log.size() && std::isdigit(static_cast<unsigned char>(log[k])); ++k) {
      }
      const bool position = j < log.size() && log[j] == ':' && k > j + 1 && k < log.size() && log[k] == ':';
      const long line = position && j - i < 9 ? std::stol(log.substr(i + 1, j - i - 1)) : 0;
      if (line > prelude) {
        out += ":" + std::to_string(line - prelude);
        i = j;
        continue;
      }
    }
    out += log[i++];
  }
  return out;
}

}  // namespace

// ---- build options and programs ------------------------------------------------------------

OpenClBuildOptions& OpenClBuildOptions::define(const std::string& name, const std::string& value) {
  text_ += " -D" + name + "=" + value;
  return *this;
}

OpenClBuildOptions& OpenClBuildOptions::define(const std::string& name, long long value) {
  return define(name, std::to_string(value));
}

OpenClBuildOptions& OpenClBuildOptions::flag(const std::string& flag) {
  text_ += " " + flag;
  return *this;
}

OpenClBuildOptions& OpenClBuildOptions::storage(const std::string& argName, const Tensor* t) {
  const bool owned = t && t->backend() && t->backend()->type() == BackendType::kOpenCL;
  const ClStorage* s = owned ? OpenClBackend::storage(t) : nullptr;
  return define(argName + "_STORAGE", s && s->image ? "IMAGE" : "BUFFER");
}

Status buildOpenClProgram(Backend* backend, const std::string& name, const std::string& source,
                          const OpenClBuildOptions& options, OpenClProgram* out, bool prelude) {
  OpenClBackend* cl = asOpenCl(backend);
  if (!cl)
    return Status::invalid("custom OpenCL program '" + name + "': needs the OpenCL backend, not " +
                           (backend ? backendTypeName(backend->type()) : "none"));
  if (source.empty()) return Status::invalid("custom OpenCL program '" + name + "': empty source");
  // The prelude: fp16 images' rounding switch (as built-in kernels get it) and nc4.h.
  std::string head;
  if (prelude) head = std::string(cl->halfImages() ? "#define TCL_HALF_IMAGES\n" : "") + opencl::headers::nc4 + "\n";
  cl_program program = nullptr;
  Status st = cl->runtime().programs().build(cacheName(name), head + source, options.text(), &program);
  if (!st.isOk())
    return Status(st.code(), userLineNumbers(st.message(), static_cast<int>(std::count(head.begin(), head.end(), '\n'))));
  out->name_ = name;
  out->program_ = program;
  return Status::ok();
}

OpenClBuffer::~OpenClBuffer() {
  if (mem_) clReleaseMemObject(static_cast<cl_mem>(mem_));
}

// ---- kernels -------------------------------------------------------------------------------

struct OpenClKernel::State {
  OpenClBackend* backend = nullptr;
  cl_kernel kernel = nullptr;
  std::string name;
  cl_uint expected = 0;  // the kernel's parameter count
  cl_uint next = 0;      // arguments set so far
  std::string error;     // the first argument that could not be set
  opencl::WorkSize work;
  bool sized = false;
  ~State() {
    if (kernel) clReleaseKernel(kernel);
  }
};

OpenClKernel::OpenClKernel(std::unique_ptr<State> s) : s_(std::move(s)) {}
OpenClKernel::~OpenClKernel() = default;
const std::string& OpenClKernel::name() const { return s_->name; }
void* OpenClKernel::native() const { return s_->kernel; }

OpenClKernel& OpenClKernel::setArg(size_t size, const void* value) {
  const cl_int err = clSetKernelArg(s_->kernel, s_->next, size, value);
  if (err != CL_SUCCESS && s_->error.empty())
    s_->error = "argument " + std::to_string(s_->next) + " (" + std::to_string(size) + " bytes): " +
                opencl::errorName(err) + (err == CL_INVALID_ARG_SIZE ? " (pass the parameter's exact type)" : "");
  ++s_->next;
  return *this;
}

OpenClKernel& OpenClKernel::tensor(const Tensor* t) {
  if (!t || t->backend() != s_->backend || !OpenClBackend::storage(t)) {
    if (s_->error.empty())
      s_->error = "argument " + std::to_string(s_->next) + ": " +
                  (t ? "tensor " + t->describe() + " is not on this OpenCL device (a host constant is read in onPrepare)"
                     : std::string("no tensor (an omitted optional input?)"));
    ++s_->next;
    return *this;
  }
  cl_mem mem = OpenClBackend::storage(t)->mem;
  return setArg(sizeof(cl_mem), &mem);
}

OpenClKernel& OpenClKernel::buffer(const OpenClBuffer* b) {
  cl_mem mem = b ? static_cast<cl_mem>(b->native()) : nullptr;
  return setArg(sizeof(cl_mem), &mem);
}

Status OpenClKernel::setWorkSize(const std::vector<int64_t>& global, const std::vector<int64_t>& local) {
  const std::string what = "kernel '" + s_->name + "'";
  if (!s_->error.empty()) return Status::invalid(what + ": " + s_->error);
  if (s_->next != s_->expected)
    return Status::invalid(what + " takes " + std::to_string(s_->expected) + " arguments but " +
                           std::to_string(s_->next) + " were set");
  if (global.empty() || global.size() > 3)
    return Status::invalid(what + ": the global size needs 1 to 3 dimensions, not " + std::to_string(global.size()));
  if (!local.empty() && local.size() != global.size())
    return Status::invalid(what + ": the local size has " + std::to_string(local.size()) +
                           " dimensions, the global size " + std::to_string(global.size()));
  const opencl::DeviceInfo& dev = s_->backend->device();
  size_t kernelLimit = dev.maxWorkGroupSize;
  clGetKernelWorkGroupInfo(s_->kernel, dev.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kernelLimit), &kernelLimit,
                           nullptr);
  opencl::WorkSize w;
  w.dims = static_cast<int>(global.size());
  size_t group = 1;
  for (size_t d = 0; d < global.size(); ++d) {
    if (global[d] < 1) return Status::invalid(what + ": global size " + std::to_string(global[d]) + " in dimension " + std::to_string(d));
    w.global[d] = static_cast<size_t>(global[d]);
    if (local.empty()) continue;
    if (local[d] < 1 || static_cast<size_t>(local[d]) > dev.maxWorkItemSizes[d])
      return Status::invalid(what + ": local size " + std::to_string(local[d]) + " in dimension " +
                             std::to_string(d) + " is outside 1.." + std::to_string(dev.maxWorkItemSizes[d]));
    w.local[d] = static_cast<size_t>(local[d]);
    group *= w.local[d];
  }
  if (group > kernelLimit)
    return Status::invalid(what + ": a work-group of " + std::to_string(group) + " items exceeds this kernel's limit of " +
                           std::to_string(kernelLimit) + " on '" + dev.deviceName + "'");
  s_->work = w;
  s_->sized = true;
  return Status::ok();
}

// ---- the execution -------------------------------------------------------------------------

struct OpenClCustomExecution::State {
  OpenClBackend* cl = nullptr;  // null when created on another backend (reported by onResize)
  std::string wrongBackend;
  std::vector<std::unique_ptr<OpenClKernel>> kernels;
  std::vector<std::unique_ptr<OpenClBuffer>> buffers;
  size_t profileBegin = 0, profileEnd = 0;
};

OpenClCustomExecution::OpenClCustomExecution(Backend* backend) : CustomExecution(backend), s_(new State) {
  s_->cl = asOpenCl(backend);
  if (!s_->cl) s_->wrongBackend = backend ? backendTypeName(backend->type()) : "no";
}

OpenClCustomExecution::~OpenClCustomExecution() = default;

Status OpenClCustomExecution::beginPlan(const Tensors&, const Tensors&) {
  if (!s_->cl) return Status::invalid("custom OpenCL execution created on the " + s_->wrongBackend + " backend");
  s_->kernels.clear();
  return Status::ok();
}

Status OpenClCustomExecution::endPlan(const Tensors&, const Tensors&) {
  for (auto& k : s_->kernels)
    if (!k->s_->sized) return Status::invalid("kernel '" + k->name() + "' has no work size (call setWorkSize in onPlan)");
  return Status::ok();
}

Status OpenClCustomExecution::onExecute(const Tensors&, const Tensors&) {
  s_->profileBegin = s_->cl->profileCursor();
  for (auto& k : s_->kernels) TESSERA_RETURN_IF_ERROR(s_->cl->enqueue(k->s_->kernel, k->s_->work, k->s_->name));
  s_->profileEnd = s_->cl->profileCursor();
  return Status::ok();
}

bool OpenClCustomExecution::deviceTimeMs(double* ms) const {
  if (!s_->cl || !s_->cl->profiling() || s_->profileEnd == s_->profileBegin) return false;
  *ms = s_->cl->profileSum(s_->profileBegin, s_->profileEnd);
  return true;
}

Status OpenClCustomExecution::buildProgram(const std::string& name, const std::string& source,
                                           const OpenClBuildOptions& options, OpenClProgram* out, bool prelude) {
  return buildOpenClProgram(backend(), name, source, options, out, prelude);
}

Status OpenClCustomExecution::addKernel(const OpenClProgram& program, const std::string& kernelName,
                                        OpenClKernel** out) {
  if (!s_->cl) return Status::invalid("custom OpenCL execution created on the " + s_->wrongBackend + " backend");
  if (!program.native()) return Status::invalid("kernel '" + kernelName + "': the program was not built");
  auto state = std::make_unique<OpenClKernel::State>();
  cl_int err = CL_SUCCESS;
  state->kernel = clCreateKernel(static_cast<cl_program>(program.native()), kernelName.c_str(), &err);
  if (err != CL_SUCCESS)
    return Status::invalid("kernel '" + kernelName + "' of custom OpenCL program '" + program.name() + "': " +
                           opencl::errorName(err) + (err == CL_INVALID_KERNEL_NAME ? " (no such __kernel)" : ""));
  clGetKernelInfo(state->kernel, CL_KERNEL_NUM_ARGS, sizeof(state->expected), &state->expected, nullptr);
  state->backend = s_->cl;
  state->name = kernelName;
  s_->kernels.push_back(std::unique_ptr<OpenClKernel>(new OpenClKernel(std::move(state))));
  *out = s_->kernels.back().get();
  return Status::ok();
}

Status OpenClCustomExecution::createBuffer(size_t bytes, const void* data, OpenClBuffer** out) {
  if (!s_->cl) return Status::invalid("custom OpenCL execution created on the " + s_->wrongBackend + " backend");
  std::unique_ptr<OpenClBuffer> b(new OpenClBuffer);
  cl_int err = CL_SUCCESS;
  // At least 16 bytes: zero-sized buffers are invalid. Filled by a blocking write (planning).
  b->mem_ = clCreateBuffer(s_->cl->context(), CL_MEM_READ_WRITE, std::max<size_t>(bytes, 16), nullptr, &err);
  if (err == CL_SUCCESS && data && bytes)
    err = clEnqueueWriteBuffer(s_->cl->queue(), static_cast<cl_mem>(b->mem_), CL_TRUE, 0, bytes, data, 0, nullptr,
                               nullptr);
  if (err != CL_SUCCESS)
    return Status::outOfMemory("custom OpenCL buffer of " + std::to_string(bytes) + " bytes: " + opencl::errorName(err));
  b->bytes_ = bytes;
  s_->buffers.push_back(std::move(b));
  *out = s_->buffers.back().get();
  return Status::ok();
}

bool OpenClCustomExecution::isImage(const Tensor* t) const {
  return s_->cl && s_->cl->owns(t) && OpenClBackend::storage(t) && OpenClBackend::storage(t)->image;
}

void* OpenClCustomExecution::nativeContext() const { return s_->cl ? s_->cl->context() : nullptr; }
void* OpenClCustomExecution::nativeDevice() const { return s_->cl ? s_->cl->device().device : nullptr; }
void* OpenClCustomExecution::nativeQueue() const { return s_->cl ? s_->cl->queue() : nullptr; }

}  // namespace tessera
