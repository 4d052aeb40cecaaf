# Bad use raises Python exceptions that name the input, the keyword or the
# module, never a crash of the interpreter.
# RUN: %amp_python %s | FileCheck %s --check-prefixes=CHECK,TORCH1
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s --check-prefixes=CHECK,TORCH2 %}
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402,F401
import amp  # noqa: E402
import torch  # noqa: E402

nn = torch.nn
x = torch.randn(8, 16)
y = torch.randint(0, 4, (8,))

attempt = T.attempt


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        return torch.sort(self.fc(x), 1).values


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = Block()
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.layer1(x))


class FFT(nn.Module):
    def forward(self, x):
        return torch.fft.fft(x).real


# TORCH1: unsupported op -> CompileError: amp.compile: cannot compile Net:
# TORCH1-NEXT: node '/layer1/TopK' (module 'layer1') (TopK): op type 'TopK' (opset 17) is not supported by the amp importer
# TORCH2: unsupported op -> CompileError: amp.compile: cannot import Net: aten.sort in module 'layer1' (errors.py:26): amp has no import for this op (docs/PyTorchImport.md lists those it has: write this computation with them, or do it outside the compiled module)
attempt("unsupported op",
        lambda: amp.compile(Net(), example_inputs=(x,)))
# TORCH1: not exportable -> ExportError: amp.compile: torch.onnx.export cannot export FFT: Exporting the operator 'aten::fft_fft' to ONNX opset version 17 is not supported
# TORCH2: not exportable -> CompileError: amp.compile: cannot import FFT: aten._fft_r2c (errors.py:41): amp has no import for this op
attempt("not exportable", lambda: amp.compile(FFT(), example_inputs=(x,)))
# CHECK: not a module -> TypeError: amp.compile: model must be a torch.nn.Module, got function
attempt("not a module", lambda: amp.compile(lambda v: v, example_inputs=(x,)))
# CHECK: bad input -> TypeError: example input 0 must be a torch.Tensor or a numpy.ndarray, got list
attempt("bad input", lambda: amp.compile(nn.Linear(16, 4),
                                         example_inputs=([1.0],)))

model = nn.Linear(16, 4)
# CHECK: unknown keyword -> TypeError: amp.compile() got an unknown keyword 'learning_rate'; the options are
attempt("unknown keyword", lambda: amp.compile(model, example_inputs=(x,),
                                               learning_rate=0.1))
# CHECK: bad precision -> ValueError: amp.compile: precision='fp4' is not one of fp32, fp16, bf16, fp8
attempt("bad precision", lambda: amp.compile(model, example_inputs=(x,),
                                             precision="fp4"))
# CHECK: nan lr -> ValueError: amp.compile: lr=nan must be a finite number
attempt("nan lr", lambda: amp.compile(model, example_inputs=(x,),
                                      lr=float("nan")))
attempt("unknown cpu", lambda: amp.compile(model, example_inputs=(x,),
                                           cpu="pentium9"))
# CHECK: unknown cpu -> CompileError: amp.compile: cannot compile Linear:
# CHECK-NEXT: cpu=pentium9 is not a CPU LLVM knows for x86_64

# CHECK: options together -> CompileError: amp.compile: cannot compile Linear:
# CHECK-NEXT: growth_interval=0 is out of range: expected at least 1
attempt("options together", lambda: amp.compile(
    model, example_inputs=(x,), precision="fp16", growth_interval=0))
# CHECK: policy key -> ValueError: amp.compile: unknown policy key 'alow'
attempt("policy key", lambda: amp.compile(model, example_inputs=(x,),
                                          policy={"alow": {}}))
# CHECK: policy op -> CompileError: amp.compile: cannot compile Linear:
# CHECK-NEXT: policy.json:1:19: unknown op kind 'amp.gelux' in deny.add
attempt("policy op", lambda: amp.compile(
    model, example_inputs=(x,), precision="bf16",
    policy={"deny": {"add": ["amp.gelux"]}}))

trainer = amp.compile(model, example_inputs=(x,))
# CHECK: feature size -> ValueError: input 'input' must have shape (8, 16), got (8, 15) (the step was compiled for these shapes; only the batch size may change)
attempt("feature size", lambda: trainer.step(torch.randn(8, 15), y))
fixed = amp.compile(model, example_inputs=(x,), partial_batches=False)
# CHECK: fixed batch -> ValueError: input 'input' must have shape (8, 16), got (7, 16)
attempt("fixed batch", lambda: fixed.step(torch.randn(7, 16), y[:7]))
# CHECK: dtype -> TypeError: input 'input' must be float32, got numpy dtype float64
attempt("dtype", lambda: trainer.step(x.double(), y))
# CHECK: label dtype -> TypeError: labels 'labels' must be int64, got numpy dtype int32
attempt("label dtype", lambda: trainer.step(x, y.int()))
# CHECK: arguments -> TypeError: step() takes the model's 1 input(s) and 1 label tensor(s), got 1 argument(s)
attempt("arguments", lambda: trainer.step(x))
# CHECK: label range -> StepIndexError: the training step failed: label 'labels' element 0 is 9, outside the classes [0, 4)
attempt("label range", lambda: trainer.step(x, torch.full((8,), 9)))
# CHECK: eval inputs -> TypeError: the model takes 1 input(s) (input), got 2
attempt("eval inputs", lambda: trainer.eval(x, x))
# CHECK: nan lr step -> ValueError: invalid learning rate nan: it must be finite and not negative
attempt("nan lr step", lambda: trainer.step(x, y, lr=float("nan")))
# CHECK: missing checkpoint -> AmpError: cannot load the state: cannot read checkpoint '/nonexistent/state.ckpt'
attempt("missing checkpoint", lambda: trainer.load("/nonexistent/state.ckpt"))
# The trainer still works after every error above.
# CHECK: still trains -> no error
attempt("still trains", lambda: trainer.step(x, y))
