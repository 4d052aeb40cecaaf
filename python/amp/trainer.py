"""amp.compile and the Trainer it returns."""
import collections
import inspect
import io
import json
import math
import os
import re
import shutil
import tempfile
import threading
import warnings

import numpy as np

from . import _amp, _tensors, debug
from ._prefix import package_prefix
from .errors import CompileError, ExportError, with_module_paths

__all__ = ["compile", "Trainer"]

# The training pipeline's options as compile keywords (growth-interval ->
# growth_interval), each with its kind, choices and amp-compile's default,
# from TrainingPipelineOptions (include/amp/Pipelines/Pipelines.h, where each
# is written once) through the extension. model-abi and lower are the
# binding's to set; cxx and policy are keywords of their own.
_OPTIONS = {option["name"].replace("-", "_"): option
            for option in _amp.pipeline_options()
            if option["name"] not in ("model-abi", "lower", "cxx", "policy")}
_PIPELINE_OPTIONS = {key: option["name"] for key, option in _OPTIONS.items()}
# The values an enum option takes (checked here so that the error names
# the keyword as the caller spelled it).
_CHOICES = {key: option["choices"] for key, option in _OPTIONS.items()
            if option["choices"]}
# amp.compile's own defaults, where they deliberately differ from
# amp-compile's (sgd, lr 0.01, no loss): a PyTorch module returns logits and
# is trained as PyTorch users expect, with torch.optim.AdamW at its default
# learning rate and cross-entropy (and AdamW's weight decay 0.01, below).
# docs/Python.md and docs/Driver.md list both sets.
_DEFAULTS = dict(loss="cross_entropy", optimizer="adamw", lr=1e-3)


def _default(key):
    """amp-compile's default of an option (the pipeline's)."""
    return _OPTIONS[key]["default"]


# The keys of a precision policy (docs/Precision.md section 6).
_POLICY_KEYS = ("precision", "level", "lp-norm", "allow", "infer", "deny",
                "clear", "pins")


def _option_text(key, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    if any(c.isspace() for c in text) or not text:
        raise ValueError("amp.compile: %s=%r must be a non-empty value "
                         "without spaces" % (key, value))
    return text


def _pipeline_options(options):
    """The pipeline option string of the keywords, each checked."""
    words = []
    for key, value in options.items():
        if value is None:
            continue
        if key in _CHOICES and value not in _CHOICES[key]:
            raise ValueError("amp.compile: %s=%r is not one of %s" %
                             (key, value, ", ".join(_CHOICES[key])))
        if _OPTIONS[key]["kind"] == "number" and (
                not isinstance(value, (int, float)) or
                not math.isfinite(value)):
            raise ValueError("amp.compile: %s=%r must be a finite number" %
                             (key, value))
        if key == "lr":
            try:
                _check_lr(value)
            except ValueError as error:
                raise ValueError("amp.compile: %s" % error) from None
        words.append("%s=%s" % (_PIPELINE_OPTIONS[key],
                                _option_text(key, value)))
    return " ".join(words)


def _write_policy(policy, directory):
    """The policy file for a dict (written as JSON) or a path (as is)."""
    if policy is None:
        return None
    if isinstance(policy, (str, os.PathLike)):
        return os.fspath(policy)
    if not isinstance(policy, dict):
        raise TypeError("amp.compile: policy must be a dict or a file path, "
                        "got %s" % type(policy).__name__)
    unknown = [k for k in policy if k.replace("_", "-") not in _POLICY_KEYS]
    if unknown:
        raise ValueError("amp.compile: unknown policy key %r; the keys are %s"
                         % (unknown[0], ", ".join(_POLICY_KEYS)))
    path = os.path.join(directory, "policy.json")
    with open(path, "w") as f:
        json.dump({k.replace("_", "-"): v for k, v in policy.items()}, f)
    return path


def _input_names(model, count):
    """The forward's parameter names (input0, ... when it takes *args)."""
    try:
        parameters = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    names = [p.name for p in parameters
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(names) < count or len(set(names[:count])) < count:
        return ["input%d" % i for i in range(count)]
    return names[:count]


def _export(model, example_inputs, input_names, opset_version, dynamic,
            output_names=None):
    """The module as ONNX bytes (PyTorch 1.x), exported in the module's own
    mode (training or eval) with its parameter names kept (no constant
    folding); with `dynamic`, the batch (first) dimension of its inputs is
    symbolic: each compilation fixes it (input_shapes), so that a last
    partial batch gets its own step. The export runs the forward, so it
    runs on a copy of the module with torch's random state put back: the
    user's module (batch-norm running statistics) and random stream are
    as they were. `output_names` names the first outputs (the importer
    takes an output named "loss" as the loss). On PyTorch 2.x the
    TorchScript exporter (dynamo=False) is the one the importer is tested
    against at every opset."""
    import torch

    extra = {}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        extra["dynamo"] = False
    if output_names:
        extra["output_names"] = list(output_names)
    buffer = io.BytesIO()
    copy = _copy_module(model)
    rng = torch.get_rng_state()
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(copy, tuple(example_inputs), buffer,
                              opset_version=opset_version,
                              training=torch.onnx.TrainingMode.TRAINING
                              if model.training else
                              torch.onnx.TrainingMode.EVAL,
                              do_constant_folding=False,
                              input_names=input_names,
                              dynamic_axes={
                                  name: {0: "batch"} for name, x in
                                  zip(input_names, example_inputs)
                                  if dynamic and x.dim() > 0},
                              **extra)
    except Exception as error:  # torch raises many kinds here
        raise ExportError("amp.compile: torch.onnx.export cannot export %s: %s"
                          % (type(model).__name__, error)) from error
    finally:
        torch.set_rng_state(rng)
    if model.training:
        return buffer.getvalue()
    return _separate_equal_initializers(buffer.getvalue(), model)


def _separate_equal_initializers(onnx_bytes, model):
    """torch.onnx's eval-mode export merges initializers of equal values
    (a batch norm's running variance of ones becomes Identity(its weight
    of ones)), so that training one would change the other. Each such
    Identity(initializer) named after another tensor of the module becomes
    that tensor's own initializer again."""
    import onnx
    from onnx import numpy_helper

    proto = onnx.load_from_string(onnx_bytes)
    graph = proto.graph
    initializers = {init.name for init in graph.initializer}
    state = model.state_dict()
    kept = []
    for node in graph.node:
        output = node.output[0] if node.output else None
        if node.op_type == "Identity" and node.input[0] in initializers and \
                output in state and output not in initializers:
            graph.initializer.append(numpy_helper.from_array(
                state[output].detach().cpu().numpy(), output))
            initializers.add(output)
            continue
        kept.append(node)
    del graph.node[:]
    graph.node.extend(kept)
    return proto.SerializeToString()


def _copy_module(model):
    import copy

    try:
        return copy.deepcopy(model)
    except Exception as error:
        raise ExportError("amp.compile: cannot copy %s to export it (amp "
                          "exports a copy so that the module is left as it "
                          "was): %s" % (type(model).__name__, error)) from error


def _onnx_rules(model):
    """What trains, from the module itself (an ONNX initializer may be a
    parameter, a frozen parameter or a buffer): the names of the trainable
    parameters, and the padding row of each nn.Embedding that has one."""
    import torch

    trainable = [name for name, p in model.named_parameters()
                 if p.requires_grad]
    padding = {}
    for path, module in model.named_modules():
        if isinstance(module, torch.nn.Embedding) and \
                module.padding_idx is not None:
            padding[(path + "." if path else "") + "weight"] = \
                int(module.padding_idx) % module.num_embeddings
    return trainable, padding


def _counters(model):
    """The integer buffers a training-mode forward counts up
    (BatchNorm's num_batches_tracked), by state_dict key: the trainer keeps
    them, one per training step."""
    import torch

    counters = {}
    if not model.training:
        return counters
    for path, module in model.named_modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm) and \
                module.training and module.track_running_stats and \
                module.num_batches_tracked is not None:
            counters[(path + "." if path else "") + "num_batches_tracked"] = 1
    return counters


def _use_torch_export(capture):
    """Whether to capture with torch.export (PyTorch 2.x) or torch.onnx
    (PyTorch 1.x); `capture` is the caller's choice or None."""
    import torch

    available = hasattr(torch, "export") and \
        hasattr(torch.export, "default_decompositions")
    if capture is None:
        return available
    if capture not in ("export", "onnx"):
        raise ValueError("amp.compile: capture=%r is not one of export, onnx"
                         % (capture,))
    if capture == "export" and not available:
        raise ValueError("amp.compile: capture='export' needs PyTorch 2.6 or "
                         "later (torch.export with decompositions); this is "
                         "%s" % torch.__version__)
    return capture == "export"


def compile(model, example_inputs, *, preset=None, policy=None,
            lr_schedule=None, seed=0, opset_version=17, cxx="c++",
            partial_batches=True, find_nonfinite=None, capture=None,
            **options):
    """Compiles `model` (a torch.nn.Module) into a training step for inputs
    shaped like `example_inputs` (a tuple of tensors or arrays; the batch
    size is fixed) and returns a Trainer.

    Keywords: every amp-compile option (target, chip, allow_tf32,
    precision, opt_level, optimizer, loss, lr, momentum, weight_decay,
    max_grad_norm, accumulate (micro-batches per optimizer update: step()
    takes one micro-batch, the gradients are summed inside the compiled
    step and applied every accumulate-th call), data_parallel,
    bucket_cap_mb, dp_reduction (data parallelism on MPI ranks, run under
    mpirun; docs/DataParallel.md), loss_scale, init_scale, growth_interval, hysteresis,
    error_at_min, cost_report, cost_device, cpu (the CPU the library's
    code is for: x86-64-v3 by default, "native" for this machine, or any
    LLVM CPU name; docs/Driver.md), cxx); policy (a dict with the
    keys of a policy file, or its path); preset (amp.presets.*, overridden
    by explicit keywords); lr_schedule (amp.schedules.* or any callable
    step -> lr); seed (random initial values and dropout); capture
    ("export": torch.export, the default on PyTorch 2.x; "onnx":
    torch.onnx.export with opset_version, the default on PyTorch 1.x);
    partial_batches (a batch of another size, such as the last one of an
    epoch, gets a step compiled for its size on first use; False: an
    error); find_nonfinite (True or "first", "every": Trainer.find_nonfinite
    from the first step)."""
    if not isinstance(model, _torch().nn.Module):
        raise TypeError("amp.compile: model must be a torch.nn.Module, got %s"
                        % type(model).__name__)
    if not isinstance(example_inputs, (tuple, list)):
        example_inputs = (example_inputs,)
    unknown = [k for k in options if k not in _PIPELINE_OPTIONS]
    if unknown:
        raise TypeError("amp.compile() got an unknown keyword %r; the options "
                        "are %s" % (unknown[0], ", ".join(
                            sorted(list(_PIPELINE_OPTIONS) +
                                   ["policy", "preset", "lr_schedule", "seed",
                                    "opset_version", "cxx", "capture",
                                    "partial_batches", "find_nonfinite"]))))
    find_nonfinite = debug.check_mode(find_nonfinite)
    merged = dict(_DEFAULTS)
    merged.update(preset or {})
    merged.update(options)
    if merged.get("optimizer") == "adamw" and "weight_decay" not in merged:
        # torch.optim.AdamW's default (amp-compile's is 0).
        merged["weight_decay"] = 0.01
    if lr_schedule is not None and not callable(lr_schedule):
        raise TypeError("amp.compile: lr_schedule must be callable (step -> "
                        "lr), got %r" % (lr_schedule,))
    arrays = [_as_array(x, "example input %d" % i)
              for i, x in enumerate(example_inputs)]
    names = _input_names(model, len(arrays))
    option_text = _pipeline_options(merged)
    tensors = [_as_torch(a) for a in arrays]

    if _use_torch_export(capture):
        compiled = _ExportCompiler(model, tensors, option_text, policy, cxx,
                                   names)
        library = compiled.library([a.shape for a in arrays])
    else:
        rules = _onnx_rules(model)

        def compiler(dynamic):
            # With loss="none" the module returns its loss: its first
            # output is named so, as torch.export's path takes it.
            onnx = _export(model, tensors, names, opset_version, dynamic,
                           ["loss"] if merged.get("loss") == "none" else None)
            return _Compiler(onnx, option_text, policy, cxx,
                             type(model).__name__, names, rules,
                             _counters(model))

        compiled = compiler(partial_batches)
        try:
            library = compiled.library([a.shape for a in arrays])
        except CompileError:
            if not partial_batches:
                raise
            # A model whose export with a symbolic batch the importer
            # cannot fold: its own batch size only (the error, if any, is
            # this one's).
            compiled = compiler(False)
            library = compiled.library([a.shape for a in arrays])
            partial_batches = False
    trainer = Trainer(library, model, names, merged, lr_schedule, seed,
                      compiled, partial_batches)
    if find_nonfinite:
        trainer.find_nonfinite(find_nonfinite)
    return trainer


class _Compiler:
    """Compiles the exported model for given input shapes (the batch size
    of the step) into a loaded library."""

    def __init__(self, onnx, option_text, policy, cxx, model_name,
                 input_names, rules=((), {}), counters=None):
        self.onnx = onnx
        self.option_text = option_text
        self.policy = policy
        self.cxx = cxx
        self.model_name = model_name
        self.input_names = input_names
        self.trainable, self.padding_indices = rules
        # What the trainer keeps beside the library's state.
        self.counters = counters or {}
        self.integer_constants = {}
        self.non_persistent = []

    def library(self, shapes):
        directory = tempfile.mkdtemp(prefix="amp-")
        try:
            # The loaded library stays mapped when its file is gone.
            return _amp.Library(self.build(shapes, directory))
        finally:
            shutil.rmtree(directory, ignore_errors=True)

    def build(self, shapes, directory, instrument_nonfinite=False):
        """Compiles the step into `directory`; returns the library's path.
        `instrument_nonfinite`: the variant that checks every op
        (amp.debug)."""
        option_text = self.option_text
        policy_path = _write_policy(self.policy, directory)
        if policy_path:
            option_text += " policy=" + _option_text("policy", policy_path)
        library_path = os.path.join(directory, "model.so")
        try:
            for warning in self._compile(shapes, option_text, library_path,
                                         instrument_nonfinite):
                warnings.warn("amp.compile: " + warning)
        except (CompileError, ExportError):
            raise
        except _amp.AmpError as error:
            raise CompileError("amp.compile: cannot compile %s:\n%s" %
                               (self.model_name,
                                with_module_paths(_keyword_names(
                                    str(error))))) from None
        return library_path

    def _compile(self, shapes, option_text, library_path,
                 instrument_nonfinite):
        input_shapes = ["%s=%s" % (name, "x".join(str(d) for d in shape))
                        for name, shape in zip(self.input_names, shapes)
                        if len(shape)]
        return _amp.compile_onnx(
            self.onnx, option_text, input_shapes, library_path,
            package_prefix(), self.cxx, instrument_nonfinite,
            trainable=list(self.trainable),
            padding_indices=dict(self.padding_indices))


class _ExportCompiler(_Compiler):
    """Captures the module with torch.export for given input shapes and
    compiles the imported forward model (amp.fx)."""

    def __init__(self, model, example_inputs, option_text, policy, cxx,
                 input_names):
        super().__init__(None, option_text, policy, cxx, type(model).__name__,
                         input_names)
        self.model = model
        self.dtypes = [x.dtype for x in example_inputs]
        self.imported = {}

    def _import(self, shapes):
        import torch

        from . import fx

        key = tuple(tuple(s) for s in shapes)
        if key in self.imported:
            return self.imported[key]
        examples = [torch.zeros(tuple(s), dtype=d)
                    for s, d in zip(shapes, self.dtypes)]
        try:
            captured = fx.capture(self.model, examples)
        except fx.ImportError_ as error:
            raise CompileError("amp.compile: cannot import %s: %s" %
                               (self.model_name, error)) from None
        except Exception as error:  # torch.export raises many kinds
            raise ExportError("amp.compile: torch.export cannot export %s: "
                              "%s" % (self.model_name, error)) from error
        try:
            imported = fx.import_program(captured, self.input_names)
        except fx.ImportError_ as error:
            raise CompileError("amp.compile: cannot import %s: %s" %
                               (self.model_name, error)) from None
        self.counters = imported.counters
        self.integer_constants = imported.integer_constants
        self.non_persistent = imported.non_persistent
        self.imported[key] = imported
        return imported

    def _compile(self, shapes, option_text, library_path,
                 instrument_nonfinite):
        imported = self._import(shapes)
        return _amp.compile_mlir(
            imported.text, {k: _as_array(v, "%s '%s'" % ("tensor", k))
                            for k, v in imported.initial.items()},
            option_text, library_path, package_prefix(), self.cxx,
            instrument_nonfinite)


def _torch():
    import torch

    return torch


def _tied_names(model):
    """state_dict key -> the module's other keys of the same tensor (tied
    weights such as a language model's embedding and output projection,
    which train as one parameter)."""
    groups = {}
    for key, tensor in model.state_dict(keep_vars=True).items():
        groups.setdefault(id(tensor), []).append(key)
    return {key: [k for k in keys if k != key]
            for keys in groups.values() for key in keys if len(keys) > 1}


def _keyword_names(message):
    """The pipeline's option names in `message` as compile keywords
    ("growth-interval=0" -> "growth_interval=0")."""
    for keyword, option in _PIPELINE_OPTIONS.items():
        message = message.replace(option + "=", keyword + "=")
    return message


# numpy arrays and torch tensors to the binding and back (_tensors.py).
_as_torch = _tensors.as_torch
_as_array = _tensors.as_array


def _check_finite(array, dtype, what):
    """Inputs, labels and weights must be finite: a NaN would poison the
    trained state without an error (amp-run refuses such data too)."""
    if dtype in ("float32", "float16") and array.size and \
            not np.isfinite(array).all():
        raise ValueError("%s has non-finite values (NaN or inf)" % what)
    if dtype == "bfloat16" and array.size and \
            ((array.view(np.uint16) & 0x7F80) == 0x7F80).any():
        raise ValueError("%s has non-finite values (NaN or inf)" % what)


def _check_lr(lr):
    """A learning rate as the step's f32: finite, not negative (as
    torch.optim), and not a nonzero value that rounds to 0 in f32."""
    if isinstance(lr, bool) or not isinstance(lr, (int, float, np.floating)):
        raise TypeError("the learning rate must be a number, got %r" % (lr,))
    lr = float(lr)
    if not math.isfinite(lr) or lr < 0:
        raise ValueError("invalid learning rate %r: it must be finite and "
                         "not negative" % lr)
    if lr != 0 and float(np.float32(lr)) == 0:
        raise ValueError("learning rate %r is 0 in the step's float32" % lr)
    return lr


class StepIndexError(_amp.AmpError, IndexError):
    """An index the step read (an embedding id, a gather index, a class
    label) was out of range, where PyTorch raises an IndexError; the step's
    updates were skipped (a label is checked before the step runs), so the
    state is as it was before it."""


# The model runtime's messages for an index out of range and for a class
# label outside the classes (lib/Runtime/ModelSteps.cpp).
_INDEX_OUT_OF_RANGE = re.compile(
    r"\bindex -?\d+ out of range \[|"
    r"\blabel '.*' element \d+ is -?\d+, outside the classes \[")


def _checking_indices(call):
    """call(), raising StepIndexError where the step found an index out of
    range (an AmpError otherwise)."""
    try:
        return call()
    except _amp.AmpError as error:
        if _INDEX_OUT_OF_RANGE.search(str(error)):
            raise StepIndexError(with_module_paths(str(error))) from None
        raise


class GradScalerState:
    """The loss scaler's state in torch.cuda.amp.GradScaler's vocabulary."""

    def __init__(self, trainer):
        self._trainer = trainer

    def _value(self, suffix):
        for tensor in self._trainer._tensors:
            if tensor["role"] == "scaler_state" and \
                    tensor["name"].endswith(suffix):
                return _tensors.item(
                    self._trainer._state.tensor(tensor["name"]))
        return None

    @property
    def enabled(self):
        return bool(self._trainer._state.stepper.loss_scales())

    @property
    def scale(self):
        """The current loss scale (1.0 without loss scaling)."""
        scales = self._trainer._state.stepper.loss_scales()
        if not scales:
            return 1.0
        value = scales[0]
        # A scale that is not positive is a fresh scaler: the first step
        # starts it at init_scale (docs/LossScaling.md).
        if value <= 0:
            return float(self._trainer.options.get(
                "init_scale", _default("init_scale")))
        return float(value)

    @property
    def growth_tracker(self):
        value = self._value("growth_tracker")
        return 0 if value is None else int(value)

    @property
    def skipped_steps(self):
        """Steps whose update was skipped for a non-finite gradient."""
        return self._trainer.skipped_steps

    def state_dict(self):
        options = self._trainer.options
        return {"scale": self.scale,
                "growth_factor": 2.0, "backoff_factor": 0.5,
                "growth_interval": options.get("growth_interval",
                                               _default("growth_interval")),
                "_growth_tracker": self.growth_tracker,
                "skipped_steps": self.skipped_steps}

    def __repr__(self):
        return "GradScalerState(%r)" % self.state_dict()


def _locked(method):
    """One call at a time per trainer: a step writes its batch into the
    state and may switch to the step of another batch size, so calls from
    several threads take turns."""
    import functools

    @functools.wraps(method)
    def call(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return call


class Trainer:
    """A compiled training step and its state (parameters, optimizer and
    loss-scaler state), created by amp.compile."""

    def __init__(self, library, model, input_names, options, lr_schedule,
                 seed, compiler=None, partial_batches=True):
        self._lock = threading.RLock()
        self._use(library, _amp.State(library, seed))
        self._compiler = compiler if partial_batches else None
        # The export, for the instrumented step of amp.debug.
        self._source = compiler
        self._finder = None
        self._seed = seed
        # The steps by batch size: the compiled one, and one per other
        # size met (the last partial batch of an epoch).
        self._compiled = {self._batch: (self._library, self._state)}
        self._input_names = input_names
        self._labels = [t["name"] for t in self._tensors
                        if t["role"] == "label"]
        # Inputs the module does not take (dropout seeds): new each step.
        self._seeds = [t["name"] for t in self._tensors
                       if t["role"] == "input" and t["name"] not in input_names]
        self._rng = np.random.default_rng(seed)
        self.options = options
        self.lr_schedule = lr_schedule
        # Optimizer updates done (the schedule's step), and calls of step()
        # (micro-batches; the same without gradient accumulation).
        self.steps = 0
        self.micro_steps = 0
        self.updated = False
        self.skipped_steps = 0
        self.scaler = GradScalerState(self)
        self._names = self._match_module_names(model)
        self._tied = _tied_names(model)
        # Integer buffers the trainer counts itself (BatchNorm's
        # num_batches_tracked: one per training step), and buffers that
        # are not in the module's state_dict (persistent=False).
        module_state = model.state_dict()
        self._counter_steps = dict(getattr(compiler, "counters", {}))
        self._counters = {key: int(module_state[key]) for key in
                          self._counter_steps if key in module_state}
        self._non_persistent = set(getattr(compiler, "non_persistent", ()))
        # Integer buffers the forward only reads, compiled as constants.
        self._integer_constants = {
            key: value for key, value in
            getattr(compiler, "integer_constants", {}).items()
            if key in module_state}
        # The state starts from the module's own values: a training-mode
        # ONNX export runs the forward, which moved the batch-norm running
        # statistics of the copy it exported.
        self.load_state_dict(module_state, strict=False)

    def _use(self, library, state):
        self._library = library
        self._state = state
        self._tensors = library.tensors
        self._by_name = {t["name"]: t for t in self._tensors}
        self._batch = next((t["shape"][0] for t in self._tensors
                            if t["role"] == "input" and t["shape"]), None)

    def _switch_batch(self, inputs):
        """Moves to the step compiled for the batch size of `inputs` when it
        is not the current one and only the batch dimension differs: the
        state goes across through a checkpoint (every tensor but inputs
        and labels)."""
        shapes = [getattr(x, "shape", None) for x in inputs]
        compiled = [self._by_name[n]["shape"] for n in self._input_names]
        if self._compiler is None or any(
                s is None or len(s) != len(c) or not len(c) or
                tuple(s[1:]) != tuple(c[1:]) for s, c in zip(shapes, compiled)):
            return
        batch = shapes[0][0]
        if batch == self._batch or any(s[0] != batch for s in shapes):
            return
        if batch not in self._compiled:
            warnings.warn("amp: compiling a step for batch size %d (the "
                          "model was compiled for %d)" % (batch, self._batch))
            library = self._compiler.library(
                [(batch,) + tuple(c[1:]) for c in compiled])
            self._compiled[batch] = (library, _amp.State(library, self._seed))
        library, state = self._compiled[batch]
        directory = tempfile.mkdtemp(prefix="amp-")
        try:
            path = os.path.join(directory, "state.ckpt")
            self._state.save(path)
            state.load(path)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        self._use(library, state)

    # Parameters and buffers under the module's state_dict names.
    def _match_module_names(self, model):
        """amp tensor name -> module state_dict key. torch.onnx.export keeps
        most names; a renamed initializer (onnx::MatMul_12) is matched by
        its contents."""
        module_state = {k: v.detach().cpu() for k, v in
                        model.state_dict().items()}
        self._module_order = {key: i for i, key in enumerate(module_state)}
        names = {}
        for tensor in self._tensors:
            if tensor["role"] not in ("parameter", "buffer") or \
                    tensor["copy_of"]:
                continue
            name = tensor["name"]
            if name in module_state:
                names[name] = name
                continue
            value = _tensors.to_torch(self._state.tensor(name))
            for key, candidate in module_state.items():
                if key not in names.values() and \
                        candidate.shape == value.shape and \
                        candidate.dtype == value.dtype and \
                        bool((candidate == value).all()):
                    names[name] = key
                    break
        return names

    def _set(self, name, value, what):
        tensor = self._by_name[name]
        array = _as_array(value, what)
        # A non-finite input or weight would poison the trained state
        # without an error (amp-run refuses such data too); with loss
        # scaling an inf or NaN in a batch only skips its update, as
        # GradScaler's, so batches may hold them there.
        if tensor["role"] not in ("input", "label") or not self.scaler.enabled:
            _check_finite(array, tensor["dtype"], what)
        try:
            self._state.set(name, array)
        except (TypeError, ValueError) as error:
            message = str(error).replace("'%s'" % name, what, 1)
            if isinstance(error, ValueError) and len(tensor["shape"]) and \
                    "shape" in message:
                message += (" (the step was compiled for these shapes; only "
                            "the batch size may change)")
            raise type(error)(message) from None

    def _set_inputs(self, inputs):
        if len(inputs) != len(self._input_names):
            raise TypeError("the model takes %d input(s) (%s), got %d" %
                            (len(self._input_names),
                             ", ".join(self._input_names), len(inputs)))
        self._switch_batch(inputs)
        for name, value in zip(self._input_names, inputs):
            self._set(name, value, "input '%s'" % name)
        for name in self._seeds:
            self._state.set(name, np.array(self._rng.integers(2 ** 62),
                                           dtype=np.int64).reshape(
                                               self._by_name[name]["shape"]))

    def _load_batch(self, batch, lr, step, mismatch):
        """Writes `batch` (the model's inputs, then the labels) and the
        learning rate of optimizer update number `step` into the state;
        `mismatch` is the message (inputs, labels, got) of a batch with
        another number of tensors."""
        count = len(self._input_names)
        inputs, labels = batch[:count], batch[count:]
        if len(labels) != len(self._labels):
            raise TypeError(mismatch % (count, len(self._labels), len(batch)))
        self._set_inputs(inputs)
        for name, value in zip(self._labels, labels):
            self._set(name, value, "labels '%s'" % name)
        if lr is None and self.lr_schedule is not None:
            lr = self.lr_schedule(step)
        if lr is not None:
            self.set_lr(lr)

    @_locked
    def step(self, *batch, lr=None):
        """One training step on `batch` (the model's inputs, then the
        labels); returns the loss as a float. `lr` sets this step's learning
        rate (else the schedule's, else the compiled one)."""
        self._load_batch(batch, lr, self.steps,
                         "step() takes the model's %d input(s) and %d label "
                         "tensor(s), got %d argument(s)")
        loss, skipped = _checking_indices(
            (self._finder or self._state).train_step)
        self._count_step()
        self.micro_steps += 1
        self.updated = self._state.stepper.completed_update
        if self.updated:
            self.steps += 1
            self.skipped_steps += int(skipped)
        return float(loss)

    def train(self, batches):
        """Trains on each batch of the iterable `batches` (tuples as step()
        takes them: the model's inputs, then the labels) and yields each
        step's loss, as step() returns it.

        On a GPU each batch is uploaded while the step before it runs
        (amp_train_step_begin/finish, docs/Driver.md), as a data loader's
        prefetch would; the losses and the trained state are the same bits
        as step()'s. So the next batch is taken from `batches` (and
        trained on) before the loss of the one before is yielded: leaving
        the loop early still finishes the steps begun, one batch more than
        the losses received. With gradient accumulation or amp.debug's
        finder each batch goes through step()."""
        if self._finder is not None or self.accumulate != 1:
            for batch in batches:
                yield self.step(*batch)
            return
        # The state each begun step runs on (a batch of another size moves
        # to another compiled step, _switch_batch), oldest first.
        begun = collections.deque()
        try:
            for batch in batches:
                self._begin_step(tuple(batch), self.steps + len(begun))
                begun.append(self._state)
                if len(begun) == 2:
                    yield self._finish_step(begun.popleft())
            while begun:
                yield self._finish_step(begun.popleft())
        finally:
            while begun:  # the loop was left early: the steps still run
                self._finish_step(begun.popleft())

    @_locked
    def _begin_step(self, batch, step):
        self._load_batch(batch, None, step,
                         "train() takes batches of the model's %d input(s) "
                         "and %d label tensor(s), got a batch of %d")
        _checking_indices(self._state.stepper.begin_step)

    @_locked
    def _finish_step(self, state):
        loss, skipped = _checking_indices(state.stepper.finish_step)
        self._count_step()
        self.micro_steps += 1
        self.steps += 1
        self.updated = True
        self.skipped_steps += int(skipped)
        return float(loss)

    def _count_step(self):
        """Each training forward counts the module's step counters up (as
        PyTorch's BatchNorm does, once per forward in training mode)."""
        for key, increment in self._counter_steps.items():
            if key in self._counters:
                self._counters[key] += increment

    @property
    def accumulate(self):
        """Micro-batches per optimizer update (1: no accumulation)."""
        value = self._state.stepper.accumulation
        if value is None:
            return 1
        # Zero (never set) is the count compiled in.
        return int(value) if value >= 1 else \
            int(self.options.get("accumulate", _default("accumulate")))

    @accumulate.setter
    def accumulate(self, count):
        # The step's micro-batch counter is an f32: exact up to 2^24.
        if isinstance(count, bool) or not isinstance(count, int) or \
                not 1 <= count <= 2 ** 24:
            raise ValueError("accumulate must be an integer >= 1 (at most "
                             "2^24), got %r" % (count,))
        for _, state in self._compiled.values():
            state.stepper.set_accumulation(count)

    @_locked
    def set_lr(self, lr):
        """Sets the learning rate of the next steps."""
        self._state.stepper.set_lr(_check_lr(lr))

    @property
    def lr(self):
        return self._state.stepper.lr

    @_locked
    def eval(self, *inputs):
        """The model's forward in evaluation mode (batch norm with running
        statistics, no dropout) on `inputs`: its output as a torch tensor,
        or a tuple of them."""
        self._set_inputs(inputs)
        outputs = [_tensors.to_torch(tensor)
                   for name, role, tensor in _checking_indices(
                       self._state.eval)
                   if role == "output"]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _module_tensors(self):
        """The parameters and buffers (not the low-precision copies of
        master weights) by their module state_dict names, tied weights
        under each of their names."""
        tensors = {}
        for t in self._tensors:
            if t["role"] not in ("parameter", "buffer") or t["copy_of"] or \
                    t["name"] in self._non_persistent:
                continue
            key = self._names.get(t["name"], t["name"])
            tensors[key] = t
            for alias in self._tied.get(key, ()):
                tensors[alias] = t
        # In the module's state_dict order.
        return dict(sorted(tensors.items(), key=lambda item:
                           self._module_order.get(item[0], len(tensors))))

    @_locked
    def state_dict(self):
        """The parameters and buffers as torch tensors, by the module's
        state_dict names (copies)."""
        import torch

        state = {key: _tensors.to_torch(self._state.tensor(t["name"]))
                 for key, t in self._module_tensors().items()}
        for key, value in self._counters.items():
            state[key] = torch.tensor(value, dtype=torch.int64)
        for key, value in self._integer_constants.items():
            state[key] = value.clone()
        return dict(sorted(state.items(), key=lambda item:
                           self._module_order.get(item[0], len(state))))

    @_locked
    def tensor(self, name):
        """A copy of the state tensor `name` (an amp tensor name, as
        tensor_names() lists them) as a torch tensor."""
        if name not in self._by_name:
            raise KeyError("the compiled step has no tensor %r; its tensors "
                           "are %s" % (name, ", ".join(sorted(self._by_name))))
        return _tensors.to_torch(self._state.tensor(name))

    @_locked
    def load_state_dict(self, state_dict, strict=True):
        """Sets parameters and buffers from `state_dict` (a module's or
        state_dict()'s names); with strict, every one must be there."""
        import torch

        keys = dict(self._module_tensors())
        keys.update({k: None for k in self._counters})
        keys.update({k: None for k in self._integer_constants})
        missing = [k for k in keys if k not in state_dict]
        unexpected = [k for k in state_dict if k not in keys]
        if strict and (missing or unexpected):
            raise KeyError("load_state_dict: missing %s, unexpected %s" %
                           (missing, unexpected))
        for key, tensor in keys.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if key in self._integer_constants:
                if not torch.equal(torch.as_tensor(value),
                                   self._integer_constants[key]):
                    raise ValueError(
                        "load_state_dict: integer buffer '%s' was compiled "
                        "into the step as a constant; compile the module "
                        "with the new value" % key)
                continue
            if tensor is None:  # a counter
                self._counters[key] = int(value)
                continue
            if isinstance(value, torch.Tensor) and \
                    str(value.dtype).replace("torch.", "") != tensor["dtype"]:
                value = value.to(getattr(torch, tensor["dtype"]))
            self._set(tensor["name"], value, "'%s'" % key)
        self._refresh_copies()

    def _refresh_copies(self):
        """The low-precision copies of master weights (opt_level O2) follow
        their parameters, rounded to nearest even as the runtime does."""
        import torch

        for tensor in self._tensors:
            if tensor["copy_of"]:
                master = _tensors.to_torch(
                    self._state.tensor(tensor["copy_of"]))
                self._set(tensor["name"],
                          master.to(getattr(torch, tensor["dtype"])),
                          "'%s'" % tensor["name"])

    @_locked
    def copy_to(self, module):
        """Copies the trained parameters and buffers into `module`."""
        import torch

        with torch.no_grad():
            target = module.state_dict()
            state = self.state_dict()
            if not any(key in target for key in state):
                raise KeyError("copy_to: %s has none of the trained tensors "
                               "(%s); copy into the module that was compiled, "
                               "or one of the same architecture" % (
                                   type(module).__name__,
                                   ", ".join(list(state)[:4])))
            for key, value in state.items():
                if key in target:
                    target[key].copy_(value.to(target[key].dtype))
        return module

    @_locked
    def save(self, path):
        """The whole state (parameters, optimizer and scaler state, lr) in
        amp's checkpoint format (docs/Driver.md), as amp-run --save."""
        self._state.save(os.fspath(path))

    @_locked
    def load(self, path):
        """Loads a checkpoint written by save() or amp-run --save."""
        self._state.load(os.fspath(path))

    # Precision debugging (amp.debug, docs/Debugging.md).
    def find_nonfinite(self, mode="first"):
        """From the next step on, re-runs a step that makes the loss or the
        state inf or NaN ("first": the first such step; "every": every
        step) in an instrumented build of the same step and reports the
        first op whose results went inf or NaN from finite operands, as
        amp-run --find-nonfinite: an amp.debug.NonfiniteReport in
        `nonfinite_reports`, also given as a warning. None or False turns
        it off."""
        mode = debug.check_mode(mode)
        self._finder = debug.NonfiniteFinder(self, mode) if mode else None

    @property
    def nonfinite_reports(self):
        """The reports of find_nonfinite so far."""
        return list(self._finder.reports) if self._finder else []

    _ROLES = ("parameter", "buffer", "input", "label", "optimizer_state",
              "scaler_state", "hyperparameter", "output")

    def tensor_names(self, role=None):
        """The names of the step's tensors, or of those with `role` (one of
        Trainer._ROLES)."""
        if role is not None and role not in self._ROLES:
            raise ValueError("tensor_names: unknown role %r; the roles are %s"
                             % (role, ", ".join(self._ROLES)))
        return [t["name"] for t in self._tensors
                if role is None or t["role"] == role]
