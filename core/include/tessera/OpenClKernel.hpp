// Custom kernels for the OpenCL backend, written in OpenCL C by your program and built at
// run time on the session's device: no Tessera rebuild. Register them like any custom kernel
// (CustomOp.hpp) with backend = BackendType::kOpenCL; the creator returns a subclass of
// OpenClCustomExecution. See docs/CUSTOM_KERNELS.md.
//
// No OpenCL header is needed here: OpenCL objects are opaque. native() accessors return the
// underlying cl_* handle as void* for programs that include <CL/cl.h> themselves.
// The implementation is part of the library only when it was built with OpenCL
// (TESSERA_WITH_OPENCL in tessera/BuildConfig.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/Backend.hpp"
#include "tessera/BuildConfig.hpp"
#include "tessera/CustomExecution.hpp"

namespace tessera {

// Nc4Geometry / nc4Geometry (tessera/Tensor.hpp) give an NC4HW4 tensor's image extents.

// Build options of a program: -D defines, raw compiler flags, and the storage of each NC4HW4
// tensor argument (-D<arg>_STORAGE=IMAGE|BUFFER), which the NC4_IN/NC4_OUT/LOAD4/STORE4
// macros of the prelude need.
class OpenClBuildOptions {
 public:
  OpenClBuildOptions& define(const std::string& name, const std::string& value = "1");
  OpenClBuildOptions& define(const std::string& name, long long value);
  OpenClBuildOptions& flag(const std::string& flag);  // "-cl-mad-enable"
  // `t` is an OpenCL tensor of the execution (an input or output in onPlan).
  OpenClBuildOptions& storage(const std::string& argName, const Tensor* t);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

class OpenClProgram;

// Builds `source` with `options` on the device and context of `backend` (the OpenCL backend
// a creator or execution was given), or fetches it from the program cache: programs are
// cached per device, source and options, in memory and as binaries on disk. With `prelude`,
// the source is compiled after Tessera's NC4HW4 load/store layer (shaders/opencl/nc4.h);
// build-log line numbers still count from your source's first line. A failed build returns
// a Status whose message holds the compiler's build log.
Status buildOpenClProgram(Backend* backend, const std::string& name, const std::string& source,
                          const OpenClBuildOptions& options, OpenClProgram* out, bool prelude = true);

// A built program. It belongs to the OpenCL runtime's program cache (one per device and
// process) and stays valid as long as the process runs.
class OpenClProgram {
 public:
  const std::string& name() const { return name_; }
  void* native() const { return program_; }  // cl_program

 private:
  friend Status buildOpenClProgram(Backend*, const std::string&, const std::string&,
                                   const OpenClBuildOptions&, OpenClProgram*, bool);  // sets these
  std::string name_;
  void* program_ = nullptr;
};

// A device buffer an execution owns (weights uploaded by onPrepare, scratch).
class OpenClBuffer {
 public:
  ~OpenClBuffer();
  OpenClBuffer(const OpenClBuffer&) = delete;
  OpenClBuffer& operator=(const OpenClBuffer&) = delete;
  size_t bytes() const { return bytes_; }
  void* native() const { return mem_; }  // cl_mem

 private:
  friend class OpenClCustomExecution;
  OpenClBuffer() = default;
  void* mem_ = nullptr;
  size_t bytes_ = 0;
};

// One kernel of an execution: arguments in the order of its parameters, then its work size.
// Argument errors are reported by setWorkSize (planning), not by the setters.
class OpenClKernel {
 public:
  ~OpenClKernel();
  OpenClKernel(const OpenClKernel&) = delete;
  OpenClKernel& operator=(const OpenClKernel&) = delete;

  // An input or output tensor: its image2d (NC4HW4 in an image) or its buffer.
  OpenClKernel& tensor(const Tensor* t);
  OpenClKernel& buffer(const OpenClBuffer* b);
  // A scalar or vector passed by value, as its bytes: pass the exact type of the kernel's
  // parameter (int32_t for int, float for float, a struct laid out like the CL one).
  template <typename T>
  OpenClKernel& arg(const T& value) {
    static_assert(std::is_trivially_copyable<T>::value && !std::is_pointer<T>::value,
                  "kernel arguments are plain values; use tensor() or buffer() for memory");
    return setArg(sizeof(T), &value);
  }
  // A __local buffer of `bytes`.
  OpenClKernel& local(size_t bytes) { return setArg(bytes, nullptr); }

  // The NDRange, 1 to 3 dimensions. `local` empty: the driver chooses. Global sizes are
  // rounded up to multiples of `local`, so the kernel must check its bounds. Fails when an
  // argument could not be set, some are missing, or `local` exceeds the device's limits.
  Status setWorkSize(const std::vector<int64_t>& global, const std::vector<int64_t>& local = {});

  const std::string& name() const;
  void* native() const;  // cl_kernel

 private:
  friend class OpenClCustomExecution;
  struct State;
  explicit OpenClKernel(std::unique_ptr<State> s);
  OpenClKernel& setArg(size_t size, const void* value);
  std::unique_ptr<State> s_;
};

// The base of a custom OpenCL execution. The Session creates an execution per plan (the first
// run, and again when input shapes change) and calls its onResize once; this class runs your
// onPrepare, then your onPlan, there. onExecute (every run) enqueues the kernels onPlan
// added, in order, on the session's in-order queue, behind the steps before it: nothing is
// built or allocated on that path. Override it only to enqueue more, calling this one.
class OpenClCustomExecution : public CustomExecution {
 public:
  // `backend` is the one the creator was given (an OpenCL backend).
  explicit OpenClCustomExecution(Backend* backend);
  ~OpenClCustomExecution() override;

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override;
  bool deviceTimeMs(double* ms) const override;

 protected:
  // Declared with setInputLayouts / setOutputLayouts / setHostConstantInputs and run through
  // onPrepare / onPlan (tessera/CustomExecution.hpp). Here kNCHW is a plain buffer and
  // kNC4HW4 an image2d (or a buffer of pixels past the image limits); NC4HW4 tensors are
  // f32, their images rgba16f under Precision::kFP16 where the device has cl_khr_fp16
  // (read_imagef and write_imagef convert, so the kernel source is the same). The dtype is
  // the one CustomKernel::dtype selects.

  // buildOpenClProgram on this execution's device.
  Status buildProgram(const std::string& name, const std::string& source, const OpenClBuildOptions& options,
                      OpenClProgram* out, bool prelude = true);
  // A kernel of `program`, enqueued by onExecute after those added before it.
  Status addKernel(const OpenClProgram& program, const std::string& kernelName, OpenClKernel** out);
  // A device buffer of `bytes`, filled from `data` when not null (planning time only).
  Status createBuffer(size_t bytes, const void* data, OpenClBuffer** out);
  // Whether an OpenCL tensor of this execution is stored as an image2d (else a buffer).
  bool isImage(const Tensor* t) const;
  void* nativeContext() const;  // cl_context
  void* nativeDevice() const;   // cl_device_id
  void* nativeQueue() const;    // cl_command_queue (the session's; valid for this plan)

 private:
  Status beginPlan(const Tensors& inputs, const Tensors& outputs) override;
  Status endPlan(const Tensors& inputs, const Tensors& outputs) override;
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace tessera
