# The presets (Apex's levels, Colossal-AI's modes) as compile keywords, and
# what each compiles to: master-weight copies for O2 and Colossal-AI's
# naive mode, the loss scaler's initial scale, fp32 for O0.
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: apex_O0: scaler off, master copies 0, loss finite True
# CHECK: apex_O2: scaler 65536.0, master copies 2, loss finite True
# CHECK: colossal_naive: scaler 16777216.0, master copies 2, loss finite True
# CHECK: keyword wins: scaler 1024.0
# CHECK: presets: apex_O0 apex_O1 apex_O2 apex_O3 colossal_apex colossal_naive colossal_torch
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402,F401
import amp  # noqa: E402
import torch  # noqa: E402

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                            torch.nn.Linear(32, 4))
x = torch.randn(8, 16)
y = torch.randint(0, 4, (8,))
for name in ["apex_O0", "apex_O2", "colossal_naive"]:
    trainer = amp.compile(model, example_inputs=(x,),
                          preset=getattr(amp.presets, name))
    loss = trainer.step(x, y)
    copies = [t for t in trainer._tensors if t["copy_of"]]
    print("%s: scaler %s, master copies %d, loss finite %s" %
          (name, trainer.scaler.scale if trainer.scaler.enabled else "off",
           len(copies), loss == loss and abs(loss) < 1e30))
trainer = amp.compile(model, example_inputs=(x,), preset=amp.presets.apex_O1,
                      init_scale=1024.0)
print("keyword wins: scaler", trainer.scaler.scale)
print("presets:", " ".join(sorted(
    n for n in dir(amp.presets) if n.startswith(("apex", "colossal")))))
