# State in PyTorch's vocabulary: state_dict() by the module's names,
# load_state_dict() round trip, copy_to(module), save()/load() in amp's
# checkpoint format, and the loss scaler as GradScaler.state_dict().
# RUN: rm -rf %t && mkdir -p %t && %amp_python %s %t | FileCheck %s
# RUN: %if torch2 %{ rm -rf %t.torch2 && mkdir -p %t.torch2 && %amp_python2 %s %t.torch2 | FileCheck %s %}
# CHECK: keys: ['0.weight', '0.bias', '1.weight', '1.bias', '1.running_mean', '1.running_var', '1.num_batches_tracked', '3.weight', '3.bias']
# CHECK: initial weights are the module's: True
# CHECK: copy_to: the module's forward matches eval: True
# CHECK: load_state_dict round trip: True
# CHECK: save/load round trip: True
# CHECK: wrong key: KeyError
# CHECK: scaler: scale 65536.0, growth tracker 3, skipped 0
# CHECK: O2 copies follow load_state_dict: True
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402,F401 (warnings, one thread)
import amp  # noqa: E402
import torch  # noqa: E402

workdir = sys.argv[1]
torch.manual_seed(0)
nn = torch.nn
model = nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU(),
                      nn.Linear(32, 4))
x = torch.randn(8, 16)
y = torch.randint(0, 4, (8,))
trainer = amp.compile(model, example_inputs=(x,), optimizer="adamw", lr=1e-2)
state = trainer.state_dict()
print("keys:", list(state))
print("initial weights are the module's:",
      all(torch.equal(v, model.state_dict()[k]) for k, v in state.items()))

for _ in range(3):
    trainer.step(x, y)
trained = trainer.state_dict()
copy = trainer.copy_to(torch.nn.Sequential(
    nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 4)))
copy.eval()
with torch.no_grad():
    print("copy_to: the module's forward matches eval:",
          bool((copy(x) - trainer.eval(x)).abs().max() < 1e-5))

# Back to the initial weights and forward again: the same step losses.
trainer.load_state_dict(state)
print("load_state_dict round trip:",
      all(torch.equal(v, trainer.state_dict()[k]) for k, v in state.items()))

path = os.path.join(workdir, "state.ckpt")
trainer.save(path)
before = [trainer.step(x, y) for _ in range(2)]
trainer.load(path)
after = [trainer.step(x, y) for _ in range(2)]
print("save/load round trip:", before == after)

try:
    trainer.load_state_dict({"nope": torch.zeros(1)})
except KeyError as error:
    print("wrong key:", type(error).__name__, error)

fp16 = amp.compile(model, example_inputs=(x,), precision="fp16",
                   opt_level="O2", lr=1e-2)
for _ in range(3):
    fp16.step(x, y)
scaler = fp16.scaler.state_dict()
print("scaler: scale %s, growth tracker %d, skipped %d" %
      (scaler["scale"], scaler["_growth_tracker"], scaler["skipped_steps"]))
# The fp16 copy of a master weight is rewritten with its parameter.
fp16.load_state_dict(state)
copy16 = amp._tensors.to_torch(fp16._state.tensor("0.weight.f16"))
print("O2 copies follow load_state_dict:",
      torch.equal(copy16, state["0.weight"].half()))
