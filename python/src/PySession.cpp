#include "python/src/PySession.hpp"

#include <algorithm>
#include <thread>

#include <pybind11/stl.h>

#include "python/src/Arrays.hpp"
#include "python/src/Errors.hpp"
#include "tessera/AutoBackend.hpp"
#include "tessera/OnnxImporter.hpp"
#include "tessera/Registry.hpp"

namespace py = pybind11;

namespace tessera {
namespace python {
namespace {

BackendType namedBackend(const std::string& name) {
  BackendType t = BackendType::kCPU;
  if (!parseBackendType(name, &t))
    throw invalidArgument("backend '" + name + "' is not one of auto, cpu, vulkan, opencl");
  if (!BackendRegistry::instance().find(t))
    throw StatusError(StatusCode::kUnavailable, "backend '" + name + "' is not built in this build");
  return t;
}

py::object shapeOf(const ValueInfo& v) {
  if (!v.hasShape) return py::none();
  py::list dims;
  for (int64_t d : v.dims) dims.append(d < 0 ? py::object(py::none()) : py::object(py::int_(d)));
  return py::tuple(dims);
}

py::list describe(const std::vector<ValueInfo>& values) {
  py::list out;
  for (const ValueInfo& v : values) {
    py::dict d;
    d["name"] = v.name;
    const char* np = numpyName(v.dtype);
    d["dtype"] = np ? np : dataTypeName(v.dtype);
    d["shape"] = shapeOf(v);
    out.append(d);
  }
  return out;
}

}  // namespace

PySession::PySession(const py::object& model, const py::object& backend, int threads, const std::string& precision,
                     const py::object& device) {
  SessionOptions o;
  if (threads < 0) throw invalidArgument("threads must be 0 (every hardware thread) or more, not " + std::to_string(threads));
  o.threads = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  if (precision == "fp32") o.precision = Precision::kFP32;
  else if (precision == "fp16") o.precision = Precision::kFP16;
  else throw invalidArgument("precision must be 'fp32' or 'fp16', not '" + precision + "'");
  if (!device.is_none()) o.device = py::str(device).cast<std::string>();

  std::vector<std::string> names;
  if (py::isinstance<py::str>(backend)) names = {backend.cast<std::string>()};
  else names = backend.cast<std::vector<std::string>>();
  if (names.empty()) throw invalidArgument("backend: give at least one of auto, cpu, vulkan, opencl");
  o.backends.clear();
  for (const std::string& n : names) {
    if (n == "auto") {
      BackendOptions bo;
      bo.precision = o.precision;
      bo.threads = o.threads;
      bo.device = o.device;
      for (BackendType t : chooseAutoBackends(bo).backends) o.backends.push_back(t);  // tessera/AutoBackend.hpp
    } else {
      o.backends.push_back(namedBackend(n));
    }
  }

  Status loaded;
  if (py::isinstance<py::bytes>(model)) {
    const std::string bytes = model.cast<std::string>();
    py::gil_scoped_release release;
    loaded = loadOnnxModelFromBytes(bytes.data(), bytes.size(), &graph_);
  } else {
    const std::string path = py::str(model).cast<std::string>();  // str or os.PathLike
    py::gil_scoped_release release;
    loaded = loadOnnxModel(path, &graph_);
  }
  if (!loaded.isOk()) throw StatusError(loaded.code(), loaded.message(), true);
  Status created;
  {
    py::gil_scoped_release release;
    created = Session::create(graph_, o, &session_);
  }
  check(created);
}

py::dict PySession::run(const py::dict& feeds, const py::object& outputs) {
  std::map<std::string, Tensor> in;
  std::vector<py::array> keep;  // the arrays the input tensors wrap
  for (auto item : feeds) {
    const std::string name = py::str(item.first).cast<std::string>();
    py::array array = py::array::ensure(item.second);
    if (!array.ptr()) throw invalidArgument("input '" + name + "': not an array");
    py::array held;
    in[name] = tensorFromArray(name, array, &held);
    keep.push_back(held);
  }
  std::vector<std::string> wanted;
  if (!outputs.is_none()) {
    wanted = outputs.cast<std::vector<std::string>>();
    for (const std::string& w : wanted) {
      bool known = false;
      for (const ValueInfo& o : graph_->outputs) known = known || o.name == w;
      if (!known) throw invalidArgument("the model has no output '" + w + "'");
    }
  }
  std::map<std::string, Tensor> out;
  Status s;
  {
    py::gil_scoped_release release;  // another Python thread may run meanwhile
    {
      std::lock_guard<std::mutex> lock(spareMutex_);  // a concurrent run finds none and allocates
      out.swap(spareOutputs_);
    }
    s = session_->run(in, &out);
  }
  check(s);
  py::dict result;
  for (const ValueInfo& o : graph_->outputs) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), o.name) == wanted.end()) continue;
    result[py::str(o.name)] = arrayFromTensor(out.at(o.name));
  }
  std::lock_guard<std::mutex> lock(spareMutex_);
  spareOutputs_.swap(out);
  return result;
}

py::list PySession::inputs() const { return describe(graph_->inputs); }
py::list PySession::outputs() const { return describe(graph_->outputs); }

py::dict PySession::placement() const {
  const PlacementReport& r = session_->report();
  py::list nodes;
  for (const auto& n : r.nodes) {
    py::dict d;
    d["node"] = n.node;
    d["op"] = n.opType;
    d["backend"] = n.folded ? "cpu" : backendTypeName(n.backend);
    d["folded"] = n.folded;
    nodes.append(d);
  }
  py::dict d;
  d["nodes"] = nodes;
  d["conversions"] = r.conversions;
  d["planned_peak_bytes"] = r.plannedPeakBytes;
  d["intermediate_bytes"] = r.intermediateBytes;
  return d;
}

py::list PySession::profile(const py::dict& feeds, int runs) {
  if (runs < 1) throw invalidArgument("runs must be 1 or more");
  check(session_->setProfiling(true));
  for (int i = 0; i < runs; ++i) run(feeds, py::none());
  py::list out;
  for (const Session::ProfileEntry& e : session_->profile()) {
    py::dict d;
    d["step"] = e.step;
    d["op"] = e.opType;
    d["backend"] = backendTypeName(e.backend);
    d["ms"] = e.ms;
    d["device_time"] = e.deviceTime;
    d["dispatches"] = e.dispatches >= 0 ? py::object(py::int_(e.dispatches)) : py::object(py::none());
    out.append(d);
  }
  check(session_->setProfiling(false));
  return out;
}

py::list PySession::backends() const {
  py::list out;
  for (BackendType t : session_->backends()) out.append(backendTypeName(t));
  return out;
}

void registerSession(py::module_& m) {
  py::class_<PySession>(m, "Session", "A model planned on the backends asked for, run on numpy arrays.")
      .def(py::init<const py::object&, const py::object&, int, const std::string&, const py::object&>(),
           py::arg("model"), py::arg("backend") = "auto", py::arg("threads") = 0, py::arg("precision") = "fp32",
           py::arg("device") = py::none())
      .def("run", &PySession::run, py::arg("feeds"), py::arg("outputs") = py::none(),
           "Runs on feeds {name: array}; returns {name: array} for the outputs asked for (all by default).")
      .def_property_readonly("inputs", &PySession::inputs, "[{'name', 'dtype', 'shape'}], None for a free dimension")
      .def_property_readonly("outputs", &PySession::outputs)
      .def_property_readonly("backends", &PySession::backends, "the backends created, in preference order")
      .def("placement", &PySession::placement, "each node's backend, the conversions inserted, planned memory")
      .def("profile", &PySession::profile, py::arg("feeds"), py::arg("runs") = 1,
           "runs with profiling on; the per-step times of the last run");
}

}  // namespace python
}  // namespace tessera
