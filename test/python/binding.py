# Tensors across the _amp binding (buffer protocol only, the same build under
# numpy 1.x and 2.x): round trips of float32, bfloat16 and int64 through
# State.set/State.tensor from numpy arrays and torch tensors; a wrong dtype,
# shape or layout raises; compile_mlir trains a linear layer on an amp
# dialect module like numpy's float64 arithmetic; its errors name the place.
# RUN: rm -rf %t && mkdir -p %t && %amp_python %s %t | FileCheck %s
# RUN: rm -rf %t && mkdir -p %t && %if torch2 %{ %amp_python2 %s %t | FileCheck %s %}
import gc
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from amp import _amp, _tensors  # noqa: E402

workdir = sys.argv[1]
# The build tree around python_packages/amp (the model runtime the libraries
# link), or $AMP_PREFIX as for amp.compile.
PREFIX = os.environ.get("AMP_PREFIX") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(_amp.__file__))))

# A linear layer (2 classes of 3 features, batch 4) with a bf16 buffer the
# forward does not read (it is state all the same).
SIGNATURE = """
func.func @linear(
    %x: tensor<4x3xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %w: tensor<2x3xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %b: tensor<2xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"},
    %t: tensor<3xbf16> {amp.role = #amp.role<buffer>, amp.name = "table"})
    -> (tensor<4x2xf32> {amp.role = #amp.role<output>, amp.name = "logits"})
    attributes {amp.graph = #amp.graph<forward>} {
"""
LINEAR = SIGNATURE + """
  %y = amp.linear %x, %w, %b
      : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
"""
OPTIONS = "loss=cross_entropy optimizer=sgd lr=0.1"

rng = np.random.default_rng(0)
w0 = rng.standard_normal((2, 3)).astype(np.float32)
b0 = rng.standard_normal(2).astype(np.float32)
table0 = torch.tensor([1.5, -2.0, 0.375], dtype=torch.bfloat16)
initial = {"fc.weight": w0, "fc.bias": b0.tobytes(),
           "table": _tensors.as_array(table0, "table")}


def compile_mlir(text, values=initial, name="linear"):
    path = os.path.join(workdir, name + ".so")
    _amp.compile_mlir(text, values, OPTIONS, path, PREFIX, "c++")
    return _amp.Library(path)


library = compile_mlir(LINEAR)
print("tensors:", [(t["name"], t["role"], t["dtype"]) for t in
                   library.tensors])
# CHECK: tensors: [('fc.weight', 'parameter', 'float32'), ('fc.bias', 'parameter', 'float32'), ('table', 'buffer', 'bfloat16'), ('x', 'input', 'float32'), ('labels', 'label', 'int64'), ('lr', 'hyperparameter', 'float32')]
state = _amp.State(library, 0)


def get(name):
    return _tensors.to_torch(state.tensor(name))


# The initial values arrive as given (a typed array, raw bytes, a bf16
# tensor's int16 view).
print("initial values:", np.array_equal(_tensors.to_numpy(
    state.tensor("fc.weight")), w0) and np.array_equal(get("fc.bias"), b0)
    and torch.equal(get("table"), table0))
# CHECK: initial values: True

# Round trips: numpy and torch in, numpy and torch out, bit for bit.
w1 = rng.standard_normal((2, 3)).astype(np.float32)
state.set("fc.weight", w1)
print("f32 numpy:", _tensors.to_numpy(state.tensor("fc.weight")).dtype,
      np.array_equal(_tensors.to_numpy(state.tensor("fc.weight")), w1))
# CHECK: f32 numpy: float32 True
w2 = torch.randn(2, 3, generator=torch.Generator().manual_seed(1))
state.set("fc.weight", _tensors.as_array(w2, "w2"))
print("f32 torch:", get("fc.weight").dtype, torch.equal(get("fc.weight"), w2))
# CHECK: f32 torch: torch.float32 True
table1 = torch.tensor([3.140625, -0.0078125, 1e30], dtype=torch.bfloat16)
state.set("table", _tensors.as_array(table1, "table"))
print("bf16 torch:", get("table").dtype, torch.equal(get("table"), table1),
      _tensors.to_numpy(state.tensor("table")).dtype)
# CHECK: bf16 torch: torch.bfloat16 True int16
labels = np.array([1, 0, 1, 1], dtype=np.int64)
state.set("labels", labels)
print("int64 numpy:", np.array_equal(
    _tensors.to_numpy(state.tensor("labels")), labels))
# CHECK: int64 numpy: True
labels_t = torch.tensor([0, 1, 1, 0])
state.set("labels", _tensors.as_array(labels_t, "labels"))
print("int64 torch:", get("labels").dtype, torch.equal(get("labels"),
                                                       labels_t))
# CHECK: int64 torch: torch.int64 True
print("scalar:", _tensors.item(state.tensor("lr")) == np.float32(0.1),
      state.tensor("lr"))
# CHECK: scalar: True <amp Tensor 'lr' float32 ()>

# In place both ways: a contiguous CPU tensor is handed over as a view of
# its memory, and a state tensor is read as a view of the state's memory
# (which the view keeps alive).
x_t = torch.randn(4, 3, generator=torch.Generator().manual_seed(2))
print("zero copy in:", _tensors.as_array(x_t, "x").ctypes.data ==
      x_t.data_ptr(), _tensors.as_array(w1, "w1") is w1)
# CHECK: zero copy in: True True
view = _tensors.to_numpy(state.tensor("fc.bias"))
state.set("fc.bias", np.array([0.25, -4.0], np.float32))
print("zero copy out:", view.tolist())
# CHECK: zero copy out: [0.25, -4.0]
other = _amp.State(library, 0)
kept = _tensors.to_numpy(other.tensor("fc.weight"))
del other
gc.collect()
print("a view keeps its state alive:", np.array_equal(kept, w0))
# CHECK: a view keeps its state alive: True
# A layout the binding cannot read in place is copied by as_array.
print("as_array copies other strides:", np.array_equal(
    _tensors.as_array(w1.T, "w").reshape(-1), w1.T.reshape(-1)))
# CHECK: as_array copies other strides: True

# Every mismatch raises and leaves the tensor as it was.
before = _tensors.to_numpy(state.tensor("fc.weight")).copy()
T.attempt("f64", lambda: state.set("fc.weight", w1.astype(np.float64)))
# CHECK: f64 -> TypeError: 'fc.weight' must be float32, got numpy dtype float64
T.attempt("f32 into bf16", lambda: state.set(
    "table", np.zeros(3, np.float32)))
# CHECK: f32 into bf16 -> TypeError: 'table' must be bfloat16 (as its int16 view), got numpy dtype float32
T.attempt("uint16 into bf16", lambda: state.set(
    "table", np.zeros(3, np.uint16)))
# CHECK: uint16 into bf16 -> TypeError: 'table' must be bfloat16 (as its int16 view), got numpy dtype uint16
T.attempt("int32 labels", lambda: state.set(
    "labels", np.zeros(4, np.int32)))
# CHECK: int32 labels -> TypeError: 'labels' must be int64, got numpy dtype int32
T.attempt("big-endian", lambda: state.set(
    "fc.weight", w1.astype(">f4")))
# CHECK: big-endian -> TypeError: 'fc.weight' must be float32, got buffer format '>f'
T.attempt("bytes", lambda: state.set("fc.weight", w1.tobytes()))
# CHECK: bytes -> TypeError: 'fc.weight' must be float32, got numpy dtype uint8
T.attempt("shape", lambda: state.set("fc.weight", w1.reshape(3, 2)))
# CHECK: shape -> ValueError: 'fc.weight' must have shape (2, 3), got (3, 2)
T.attempt("flat", lambda: state.set("fc.weight", w1.reshape(6)))
# CHECK: flat -> ValueError: 'fc.weight' must have shape (2, 3), got (6,)
T.attempt("transposed", lambda: state.set(
    "fc.weight", np.asfortranarray(w1)))
# CHECK: transposed -> ValueError: 'fc.weight' must be C-contiguous (strides (12, 4) in bytes), got strides (4, 8): make a contiguous copy (numpy.ascontiguousarray)
T.attempt("strided", lambda: state.set(
    "fc.weight", np.zeros((2, 6), np.float32)[:, ::2]))
# CHECK: strided -> ValueError: 'fc.weight' must be C-contiguous (strides (12, 4) in bytes), got strides (24, 8)
T.attempt("torch tensor", lambda: state.set("fc.weight", w2))
# CHECK: torch tensor -> TypeError: 'fc.weight' must support the buffer protocol (a numpy array; amp._tensors.as_array converts a torch tensor), got Tensor
T.attempt("unknown", lambda: state.set("nope", w1))
# CHECK: unknown -> KeyError: "the model has no tensor named 'nope'"
T.attempt("as_array list", lambda: _tensors.as_array([1.0], "input 'x'"))
# CHECK: as_array list -> TypeError: input 'x' must be a torch.Tensor or a numpy.ndarray, got list
print("unchanged:", np.array_equal(
    _tensors.to_numpy(state.tensor("fc.weight")), before))
# CHECK: unchanged: True

# Two SGD steps of cross-entropy against numpy in float64: the loss of each
# step and the trained parameters. fp32 rounding is ~1e-7 relative; a
# tensor garbled on the way in or out is off by far more.
trainer = _amp.State(library, 0)
x = rng.standard_normal((4, 3)).astype(np.float32)
y = np.array([0, 1, 1, 0], dtype=np.int64)
w, b = w0.astype(np.float64), b0.astype(np.float64)
errors = []
for step in range(2):
    trainer.set("x", x)
    trainer.set("labels", _tensors.as_array(torch.from_numpy(y), "labels"))
    loss, skipped = trainer.train_step()
    logits = x @ w.T + b
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    expected = -np.log(p[np.arange(4), y]).mean()
    grad = (p - np.eye(2)[y]) / 4
    w, b = w - 0.1 * (grad.T @ x), b - 0.1 * grad.sum(0)
    errors.append(abs(loss - expected) / expected)
    print("step %d: loss %.5f" % (step + 1, loss))
for name, reference in (("fc.weight", w), ("fc.bias", b)):
    trained = _tensors.to_numpy(trainer.tensor(name))
    errors.append(np.abs(trained - reference).max() / np.abs(reference).max())
print("compile_mlir sgd: losses and parameters within 1e-6:",
      max(errors) < 1e-6)
# CHECK: step 1: loss [[LOSS1:[0-9.]+]]
# CHECK-NOT: loss [[LOSS1]]
# CHECK: step 2: loss
# CHECK: compile_mlir sgd: losses and parameters within 1e-6: True
results = trainer.eval()
logits = results[0][2]
print("eval:", [(n, r, t.dtype, t.shape) for n, r, t in results],
      np.abs(_tensors.to_numpy(logits) - (x @ w.T + b)).max() < 1e-5)
# CHECK: eval: [('logits', 'output', 'float32', (4, 2)), ('loss', 'loss', 'float32', ())] True

# compile_mlir's errors: parse and verifier errors with their places
# (file positions, named locations as an importer writes them), initial
# values that do not fit, and text the parser must not choke on.
def mlir_error(what, text, values=initial):
    T.attempt(what, lambda: compile_mlir(text, values, name="bad"))


mlir_error("parse", LINEAR.replace("amp.linear", "amp.linaer"))
# CHECK: parse -> AmpError: model.mlir:10:8: custom op 'amp.linaer' is unknown
mlir_error("trailing garbage", LINEAR + "} extra")
# CHECK: trailing garbage -> AmpError: model.mlir:13:2: expected operation name in quotes
# A linear layer whose result type is wrong: the verifier's error.
BAD = SIGNATURE.replace("tensor<4x2xf32> {amp.role = #amp.role<output>",
                        "tensor<4x5xf32> {amp.role = #amp.role<output>") + """
  %y = amp.linear %x, %w, %b
      : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<4x5xf32>
      LOC
  return %y : tensor<4x5xf32>
}
"""
mlir_error("name location",
           BAD.replace("LOC", 'loc("fc: model.py:12")'))
# CHECK: name location -> AmpError: fc: model.py:12: 'amp.linear' op
mlir_error("file location",
           BAD.replace("LOC", 'loc("model.py":12:5)'))
# CHECK: file location -> AmpError: model.py:12:5: 'amp.linear' op
mlir_error("name and file",
           BAD.replace("LOC", 'loc("fc"("model.py":12:5))'))
# CHECK: name and file -> AmpError: fc: model.py:12:5: 'amp.linear' op
mlir_error("nested", "(" * 100000)
# CHECK: nested -> AmpError: {{.*}}nest
mlir_error("truncated", LINEAR[:len(LINEAR) // 2])
# CHECK: truncated -> AmpError: model.mlir:6:
mlir_error("binary", b"\xff\xfe\x00garbage")
# CHECK: binary -> AmpError: model.mlir:1:1:
mlir_error("empty", "")
# CHECK: empty -> AmpError: 'model.mlir' {{.+}}
mlir_error("missing value", LINEAR, {"fc.weight": w0, "table": b"\0" * 6})
# CHECK: missing value -> ValueError: initial_values has no value for parameter 'fc.bias'
mlir_error("unknown value", LINEAR, dict(initial, extra=b0))
# CHECK: unknown value -> ValueError: initial_values has 'extra', which is no parameter or buffer of the model
mlir_error("short bytes", LINEAR, dict(initial, **{"fc.bias": b"\0" * 7}))
# CHECK: short bytes -> ValueError: the initial value of parameter 'fc.bias' must have 8 bytes (float32 (2,)), got 7
mlir_error("strided bytes", LINEAR, dict(initial, **{
    "fc.bias": np.frombuffer(b0.tobytes() * 2, np.uint8)[::2]}))
# CHECK: strided bytes -> ValueError: the initial value of parameter 'fc.bias' must be C-contiguous (strides (1,) in bytes), got strides (2,)
mlir_error("typed value", LINEAR, dict(initial, **{"fc.weight": w0.T}))
# CHECK: typed value -> ValueError: the initial value of parameter 'fc.weight' must have shape (2, 3), got (3, 2)
mlir_error("value dtype", LINEAR,
           dict(initial, table=np.zeros(3, np.float16)))
# CHECK: value dtype -> TypeError: the initial value of buffer 'table' must be bfloat16 (as its int16 view), got numpy dtype float16
mlir_error("not a buffer", LINEAR, dict(initial, table=[0, 0, 0]))
# CHECK: not a buffer -> TypeError: initial value 'table' must support the buffer protocol

# compile_onnx takes which initializers train and the embeddings' padding
# rows as keywords (checked in type here; test/Target/ONNX checks what the
# importer does with them).
T.attempt("padding type", lambda: _amp.compile_onnx(
    b"", OPTIONS, [], os.path.join(workdir, "x.so"), PREFIX, "c++",
    trainable=["w"], padding_indices={"w": "zero"}))
# CHECK: padding type -> TypeError: compile_onnx(): incompatible function arguments
T.attempt("onnx keywords", lambda: _amp.compile_onnx(
    b"", OPTIONS, [], os.path.join(workdir, "x.so"), PREFIX, "c++",
    trainable=["w"], padding_indices={"w": 0}))
# CHECK: onnx keywords -> AmpError:
