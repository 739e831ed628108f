// tessera.Session: a model loaded and planned on the backends asked for, run on numpy arrays.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "tessera/Session.hpp"

namespace tessera {
namespace python {

class PySession {
 public:
  // `model`: a path (str) or the model's bytes; `backend`: "auto", "cpu", "vulkan",
  // "opencl" or a list of them in order of preference (the CPU is always the last resort);
  // `threads` 0: every hardware thread; `precision`: "fp32" or "fp16"; `device`: a GPU
  // index or a substring of its name.
  PySession(const pybind11::object& model, const pybind11::object& backend, int threads,
            const std::string& precision, const pybind11::object& device);

  // Runs on `feeds` (name -> array); returns the outputs named in `outputs` (all if None).
  pybind11::dict run(const pybind11::dict& feeds, const pybind11::object& outputs);
  pybind11::list inputs() const;
  pybind11::list outputs() const;
  // Each node's backend, the conversions inserted and the planned memory of the last plan.
  pybind11::dict placement() const;
  // Runs `runs` times on `feeds` with profiling on; per-step times of the last run.
  pybind11::list profile(const pybind11::dict& feeds, int runs);
  pybind11::list backends() const;

 private:
  std::shared_ptr<Graph> graph_;
  std::unique_ptr<Session> session_;
  // The last run's output tensors, handed to the next run to refill (Session::run): the
  // arrays returned are copies, so nothing else holds them.
  std::mutex spareMutex_;
  std::map<std::string, Tensor> spareOutputs_;
};

void registerSession(pybind11::module_& m);

}  // namespace python
}  // namespace tessera
