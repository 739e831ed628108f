// tessera.Error and its subclasses: a failed Status becomes the exception of its kind,
// carrying the library's message.
#pragma once
#include <stdexcept>
#include <string>

#include <pybind11/pybind11.h>

#include "tessera/Status.hpp"

namespace tessera {
namespace python {

// Thrown on the C++ side, translated by the module into the Python class of its code.
struct StatusError : std::runtime_error {
  StatusError(StatusCode c, const std::string& m, bool model = false)
      : std::runtime_error(m), code(c), invalidModel(model) {}
  StatusCode code;
  bool invalidModel;  // raised as tessera.InvalidModel: the model could not be loaded
};

inline StatusError invalidArgument(const std::string& m) { return StatusError(StatusCode::kInvalidArgument, m); }

// Throws the StatusError of a failed status.
inline void check(const Status& s) {
  if (!s.isOk()) throw StatusError(s.code(), s.message());
}

// Declares tessera.Error, InvalidModel, InvalidArgument, Unsupported, BackendUnavailable,
// OutOfMemory in `m` and the translator for StatusError.
void registerErrors(pybind11::module_& m);

}  // namespace python
}  // namespace tessera
