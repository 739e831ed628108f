// The `tessera` Python module (its compiled part, tessera._tessera): Session, devices(),
// the error classes and the version. docs/PYTHON.md.
#include <pybind11/pybind11.h>

#include "python/src/Errors.hpp"
#include "python/src/PySession.hpp"
#include "tessera/Registry.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_tessera, m) {
  m.doc() = "Tessera: run ONNX models on the CPU, Vulkan and OpenCL";
  m.attr("__version__") = TESSERA_VERSION;
  tessera::python::registerErrors(m);
  tessera::python::registerSession(m);
  m.def("devices", [] {
    py::dict out;
    for (tessera::BackendType t : tessera::BackendRegistry::instance().types()) {
      const tessera::BackendFactory* f = tessera::BackendRegistry::instance().find(t);
      out[tessera::backendTypeName(t)] = f && f->describeDevices ? f->describeDevices() : std::string();
    }
    return out;
  }, "{backend: description of its devices, or why it has none}");
}
