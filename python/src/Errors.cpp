#include "python/src/Errors.hpp"

namespace py = pybind11;

namespace tessera {
namespace python {
namespace {

struct Classes {
  py::object error, invalidModel, invalidArgument, notFound, unsupported, unavailable, outOfMemory;
};
Classes* gClasses = nullptr;  // lives as long as the module (the interpreter)

}  // namespace

void registerErrors(py::module_& m) {
  static Classes classes;
  gClasses = &classes;
  const auto make = [&](const char* name, py::handle base, const char* doc) {
    py::object cls = py::reinterpret_steal<py::object>(
        PyErr_NewExceptionWithDoc((std::string("tessera.") + name).c_str(), doc, base.ptr(), nullptr));
    m.attr(name) = cls;
    return cls;
  };
  classes.error = make("Error", PyExc_RuntimeError, "Any error the Tessera library reports, with its message.");
  classes.invalidArgument = make("InvalidArgument", classes.error, "Bad input: shapes, dtypes, attributes, files.");
  classes.invalidModel = make("InvalidModel", classes.invalidArgument, "A model that cannot be loaded or planned.");
  classes.notFound = make("NotFound", classes.error, "A missing input, file, op or kernel.");
  classes.unsupported = make("Unsupported", classes.error, "A valid request this build or device cannot do.");
  classes.unavailable = make("BackendUnavailable", classes.error, "A backend or driver that cannot be loaded.");
  classes.outOfMemory = make("OutOfMemory", classes.error, "A plan or tensor past the memory limits.");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      const Classes& c = *gClasses;
      py::handle cls = c.error;
      if (e.invalidModel) {
        PyErr_SetString(c.invalidModel.ptr(), e.what());
        return;
      }
      switch (e.code) {
        case StatusCode::kInvalidArgument: cls = c.invalidArgument; break;
        case StatusCode::kNotFound: cls = c.notFound; break;
        case StatusCode::kUnsupported: cls = c.unsupported; break;
        case StatusCode::kUnavailable: cls = c.unavailable; break;
        case StatusCode::kOutOfMemory: cls = c.outOfMemory; break;
        default: break;
      }
      PyErr_SetString(cls.ptr(), e.what());
    }
  });
}

}  // namespace python
}  // namespace tessera
