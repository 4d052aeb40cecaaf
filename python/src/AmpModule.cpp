//===- AmpModule.cpp - the amp Python extension (_amp) --------------------===//
//
// The compile flow of lib/Driver on an ONNX model held in memory, and a
// compiled library loaded through lib/Target/ModelABI (LoadedModel) with its
// state: the C++ half of the `amp` package (python/amp). Errors of the
// library come back as amp.AmpError with amp_last_error()'s text; the MLIR
// diagnostics of a failed compilation are collected into the message.
//
//===----------------------------------------------------------------------===//

#include "amp/Driver/Driver.h"
#include "amp/Target/ModelABI/LoadedModel.h"
#include "amp/Target/ModelABI/NonfiniteFinder.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>

namespace py = pybind11;
using namespace mlir;
using amp::LoadedModel;

namespace {
/// Every failure the extension reports (amp.AmpError in Python).
struct AmpError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// "NAME: message" for a location with a name (ONNX node names, the op's
/// location in the IR), "FILE:LINE:COL: message" for a file location.
void printLocation(Location loc, llvm::raw_ostream &os) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    os << name.getName().getValue() << ": ";
    return;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn() << ": ";
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      printLocation(fused.getLocations().front(), os);
}

/// The errors a compilation reports, one line each.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
            return success();
          llvm::raw_string_ostream os(text);
          if (!text.empty())
            os << "\n";
          std::string body = diagnostic.str();
          std::string place;
          llvm::raw_string_ostream placeStream(place);
          printLocation(diagnostic.getLocation(), placeStream);
          // ONNX errors name their node already.
          if (place.size() < 2 ||
              body.find(place.substr(0, place.size() - 2)) == std::string::npos)
            os << place;
          os << body;
          for (const Diagnostic &note : diagnostic.getNotes())
            os << "\n  note: " << note;
          return success();
        }) {}
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};

/// Imports the ONNX model in `bytes` and compiles it with the training
/// pipeline's options (a pipeline option string, "precision=bf16 lr=0.001")
/// into the library at `output`, with every op checked for inf/NaN when
/// `instrumentNonfinite` (amp.debug). Returns the warnings.
std::vector<std::string>
compileONNX(const std::string &bytes, const std::string &optionText,
            const std::vector<std::string> &shapes, const std::string &output,
            const std::string &prefix, const std::string &cxx,
            bool instrumentNonfinite) {
  amp::TrainingPipelineOptions options;
  std::string message;
  llvm::raw_string_ostream optionErrors(message);
  if (failed(options.parseFromString(optionText, optionErrors)))
    throw AmpError("invalid compile options: " + message);
  options.modelABI = true;
  options.linker = cxx;
  if (failed(options.verify("", message)))
    throw AmpError(message);

  DialectRegistry registry;
  amp::registerCompileDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  DiagnosticCollector diagnostics(context);
  std::vector<std::string> warnings;
  amp::InitialValues initial;
  OwningOpRef<ModuleOp> module = amp::importONNXModel(
      context, bytes, "model.onnx", shapes, "input_shapes", initial, message);
  if (module) {
    amp::CompileRequest request;
    request.modelName = "model.onnx";
    request.output = output;
    request.instrumentNonfinite = instrumentNonfinite;
    request.library.compiler = cxx;
    request.library.prefix = prefix;
    request.library.cuda = options.target != amp::TrainingTarget::CPU;
    request.library.emulator =
        options.target == amp::TrainingTarget::CUDAEmulator;
    request.warn = [&](StringRef warning) {
      warnings.push_back(warning.str());
    };
    if (succeeded(
            amp::compileModel(*module, initial, options, request, message)))
      return warnings;
  }
  std::string reason = diagnostics.text;
  if (!message.empty())
    reason += (reason.empty() ? "" : "\n") + message;
  throw AmpError(reason.empty() ? "compilation failed" : reason);
}

const char *roleName(int32_t role) {
  static const char *names[] = {
      "parameter",    "input",          "label",   "loss",   "optimizer_state",
      "scaler_state", "hyperparameter", "skipped", "output", "buffer"};
  return role >= 0 && role < int32_t(std::size(names)) ? names[role]
                                                       : "unknown";
}

/// The numpy dtype of an amp dtype; bf16 is carried as int16 (numpy has no
/// bfloat16) and reinterpreted by the Python layer.
py::dtype numpyDtype(int32_t dtype) {
  switch (dtype) {
  case AMP_DTYPE_F32:
    return py::dtype::of<float>();
  case AMP_DTYPE_F16:
    return py::dtype("float16");
  case AMP_DTYPE_BF16:
    return py::dtype::of<int16_t>();
  case AMP_DTYPE_I64:
    return py::dtype::of<int64_t>();
  case AMP_DTYPE_I32:
    return py::dtype::of<int32_t>();
  default:
    return py::dtype::of<bool>();
  }
}

const char *dtypeName(int32_t dtype) {
  static const char *names[] = {"float32", "float16", "bfloat16",
                                "int64",   "int32",   "bool"};
  return dtype >= 0 && dtype < int32_t(std::size(names)) ? names[dtype]
                                                         : "unknown";
}

py::dict describeTensor(const amp_tensor_info &info, const LoadedModel &abi) {
  py::dict tensor;
  tensor["name"] = info.name;
  tensor["role"] = roleName(info.role);
  tensor["dtype"] = dtypeName(info.dtype);
  // The low-precision copy of a master weight names its parameter.
  tensor["copy_of"] = info.copy_of >= 0 && info.copy_of < abi.numTensors()
                          ? py::object(py::str(abi.tensor(info.copy_of)->name))
                          : py::object(py::none());
  tensor["shape"] = py::tuple(
      py::cast(std::vector<int64_t>(info.shape, info.shape + info.rank)));
  return tensor;
}

std::vector<py::ssize_t> shapeOf(const amp_tensor_info &info) {
  return std::vector<py::ssize_t>(info.shape, info.shape + info.rank);
}

/// A loaded library (shared by its states, which it outlives).
class Library {
public:
  explicit Library(const std::string &path) {
    std::string error;
    model = LoadedModel::open(path, error);
    if (!model)
      throw AmpError(error);
  }
  const LoadedModel &abi() const { return *model; }
  [[noreturn]] void fail(const std::string &what) const {
    throw AmpError(what + ": " + model->lastError());
  }
  const amp_tensor_info *find(const std::string &name) const {
    for (int32_t i = 0; i < model->numTensors(); ++i)
      if (name == model->tensor(i)->name)
        return model->tensor(i);
    return nullptr;
  }

private:
  std::unique_ptr<LoadedModel> model;
};

/// The state of one model: its tensors are numpy views of the library's
/// buffers (each keeps the state alive).
class State {
public:
  State(std::shared_ptr<Library> library, uint64_t seed)
      : library(std::move(library)) {
    state = abi().create(seed);
    if (!state)
      this->library->fail("cannot create the model's state");
  }
  ~State() { abi().destroy(state); }

  /// What the precision debugger (NonfiniteFinderBinding) reads.
  amp::TrainedModel trained() const {
    return {abi().numTensors, abi().tensor, abi().stateTensor, abi().lastError};
  }
  amp_state *handle() const { return state; }

  py::array tensor(py::object self, const std::string &name) {
    const amp_tensor_info *info = library->find(name);
    if (!info)
      throw py::key_error("the model has no tensor named '" + name + "'");
    void *data = abi().stateTensor(state, name.c_str());
    if (!data)
      library->fail("cannot read tensor '" + name + "'");
    return py::array(numpyDtype(info->dtype), shapeOf(*info), data, self);
  }

  /// Copies `value` (anything with the buffer protocol) into the tensor
  /// `name`, once; its dtype and shape must be the tensor's.
  void set(const std::string &name, py::buffer value) {
    const amp_tensor_info *info = library->find(name);
    if (!info)
      throw py::key_error("the model has no tensor named '" + name + "'");
    py::buffer_info buffer = value.request();
    py::dtype expected = numpyDtype(info->dtype);
    if (!py::dtype(buffer).equal(expected))
      throw py::type_error(std::string("'") + name + "' must be " +
                           dtypeName(info->dtype) + ", got numpy dtype " +
                           py::str(py::dtype(buffer)).cast<std::string>());
    std::vector<py::ssize_t> shape = shapeOf(*info);
    if (buffer.shape != shape)
      throw py::value_error(
          "'" + name + "' must have shape " +
          py::str(py::tuple(py::cast(shape))).cast<std::string>() + ", got " +
          py::str(py::tuple(py::cast(buffer.shape))).cast<std::string>());
    py::array contiguous =
        py::array::ensure(value, py::array::c_style | py::array::forcecast);
    void *data = abi().stateTensor(state, name.c_str());
    if (!data)
      library->fail("cannot write tensor '" + name + "'");
    std::memcpy(data, contiguous.data(), contiguous.nbytes());
  }

  void setHyperparameter(const std::string &name, double value) {
    if (abi().setHyperparameter(state, name.c_str(), value))
      library->fail("cannot set '" + name + "'");
  }

  std::pair<float, bool> trainStep() { return runStep(abi().trainStep); }

  /// Overlapped steps (amp_train_step_begin/finish, ModelABI.h).
  void beginStep() {
    requireOverlappedSteps();
    int32_t status;
    {
      py::gil_scoped_release release;
      status = abi().beginStep(state);
    }
    if (status)
      library->fail("the training step failed");
  }

  std::pair<float, bool> finishStep() {
    requireOverlappedSteps();
    return runStep(abi().finishStep);
  }

  /// amp_train_step or amp_train_step_finish, without the GIL.
  std::pair<float, bool> runStep(decltype(&amp_train_step) step) {
    float loss = 0;
    int32_t skipped = 0, status;
    {
      py::gil_scoped_release release;
      status = step(state, &loss, &skipped);
    }
    if (status)
      library->fail("the training step failed");
    return {loss, skipped != 0};
  }

  void requireOverlappedSteps() const {
    if (!abi().beginStep || !abi().finishStep)
      throw AmpError("the library predates overlapped steps: compile it "
                     "again");
  }

  /// The forward model's results, copied out.
  py::list eval() {
    if (!abi().hasEval())
      throw AmpError("the library has no forward model to evaluate");
    if (!abi().numEvalResults)
      throw AmpError("the library predates eval outputs: compile it again");
    int32_t status;
    {
      py::gil_scoped_release release;
      status = abi().eval(state, nullptr);
    }
    if (status)
      library->fail("evaluation failed");
    py::list results;
    for (int32_t i = 0; i < abi().numEvalResults(); ++i) {
      const amp_tensor_info *info = abi().evalResultInfo(i);
      const void *data = abi().evalResult(state, i);
      if (!info || !data)
        library->fail("cannot read evaluation result " + std::to_string(i));
      py::array view(numpyDtype(info->dtype), shapeOf(*info), data);
      results.append(py::make_tuple(info->name, roleName(info->role), view));
    }
    return results;
  }

  void save(const std::string &path) {
    if (abi().save(state, path.c_str()))
      library->fail("cannot save the state");
  }
  void load(const std::string &path) {
    if (abi().load(state, path.c_str()))
      library->fail("cannot load the state");
  }

private:
  const LoadedModel &abi() const { return library->abi(); }
  std::shared_ptr<Library> library;
  amp_state *state = nullptr;
};

//===----------------------------------------------------------------------===//
// amp.debug: the first op that made inf or NaN (docs/Debugging.md)
//===----------------------------------------------------------------------===//

/// lib/Target/ModelABI's NonfiniteFinder on one State (which it keeps
/// alive); `build` is a Python callable that compiles the instrumented
/// library and returns its path.
class NonfiniteFinderBinding {
public:
  NonfiniteFinderBinding(py::object state, const std::string &mode,
                         py::function build)
      : stateObject(std::move(state)), build(std::move(build)) {
    std::optional<amp::NonfiniteMode> parsed = amp::parseNonfiniteMode(mode);
    if (!parsed)
      throw py::value_error("find_nonfinite=" + mode +
                            " is not one of first, every");
    finder = std::make_unique<amp::NonfiniteFinder>(
        this->state().trained(), *parsed,
        [this](std::string &path, std::string &error) {
          return buildInstrumented(path, error);
        });
  }

  bool isActive() const { return finder->isActive(); }

  void beforeStep() {
    std::string error;
    if (!finder->beforeStep(state().handle(), error))
      throw AmpError("find_nonfinite: " + error);
  }

  /// None, or the report as (its JSON object's text, amp-run's text).
  py::object afterStep(int64_t step, float loss) {
    std::optional<amp::NonfiniteReport> report;
    std::string error;
    bool ok = finder->afterStep(step, state().handle(), loss, report, error);
    if (std::exception_ptr raised = std::exchange(buildError, nullptr))
      std::rethrow_exception(raised);
    if (!ok)
      throw AmpError("find_nonfinite: " + error);
    if (!report)
      return py::none();
    std::string text;
    llvm::raw_string_ostream os(text);
    amp::printNonfiniteReport(os, *report);
    os.flush();
    return py::make_tuple(amp::nonfiniteReportJSON(*report), text);
  }

private:
  State &state() const { return stateObject.cast<State &>(); }

  /// Calls `build`; an exception it raises (amp.CompileError) is raised
  /// again by afterStep, past the finder's C++ frames.
  bool buildInstrumented(std::string &path, std::string &error) {
    try {
      path = build().cast<std::string>();
      return true;
    } catch (...) {
      buildError = std::current_exception();
      error = "the instrumented library could not be built";
      return false;
    }
  }

  py::object stateObject;
  py::function build;
  std::exception_ptr buildError;
  std::unique_ptr<amp::NonfiniteFinder> finder;
};

void bindNonfiniteFinder(py::module_ &m) {
  py::class_<NonfiniteFinderBinding>(m, "NonfiniteFinder")
      .def(py::init<py::object, const std::string &, py::function>(),
           py::arg("state"), py::arg("mode"), py::arg("build"))
      .def_property_readonly("active", &NonfiniteFinderBinding::isActive)
      .def("before_step", &NonfiniteFinderBinding::beforeStep)
      .def("after_step", &NonfiniteFinderBinding::afterStep, py::arg("step"),
           py::arg("loss"));
}
} // namespace

PYBIND11_MODULE(_amp, m) {
  m.doc() = "amp's compiler and model runtime (used by the amp package)";
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  static py::exception<AmpError> ampError(m, "AmpError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const AmpError &e) {
      ampError(e.what());
    }
  });
  m.def("has_onnx_import", &amp::hasONNXImport);
  m.def("compile_onnx", &compileONNX, py::arg("onnx"), py::arg("options"),
        py::arg("input_shapes"), py::arg("output"), py::arg("prefix"),
        py::arg("cxx"), py::arg("instrument_nonfinite") = false,
        py::call_guard<py::gil_scoped_release>(),
        "Compile a serialized ONNX model into a library at `output`; "
        "returns the warnings, raises AmpError with the diagnostics.");
  py::class_<Library, std::shared_ptr<Library>>(m, "Library")
      .def(py::init<const std::string &>())
      .def_property_readonly("tensors",
                             [](const Library &library) {
                               py::list tensors;
                               const LoadedModel &abi = library.abi();
                               for (int32_t i = 0; i < abi.numTensors(); ++i)
                                 tensors.append(
                                     describeTensor(*abi.tensor(i), abi));
                               return tensors;
                             })
      .def_property_readonly("has_eval", [](const Library &library) {
        return library.abi().hasEval() != 0;
      });
  py::class_<State>(m, "State")
      .def(py::init<std::shared_ptr<Library>, uint64_t>())
      .def("tensor",
           [](py::object self, const std::string &name) {
             return self.cast<State &>().tensor(self, name);
           })
      .def("set", &State::set)
      .def("set_hyperparameter", &State::setHyperparameter)
      .def("train_step", &State::trainStep)
      .def("begin_step", &State::beginStep)
      .def("finish_step", &State::finishStep)
      .def("eval", &State::eval)
      .def("save", &State::save)
      .def("load", &State::load);
  bindNonfiniteFinder(m);
}
