"""Named precision presets: the amp.compile keywords that reproduce Apex's
optimization levels and Colossal-AI's AMP modes with amp's passes
(docs/Python.md, docs/Precision.md). Use one as
amp.compile(model, ..., preset=amp.presets.apex_O2) or spread it,
amp.compile(model, ..., **amp.presets.apex_O2); explicit keywords win."""

__all__ = ["Preset", "apex_O0", "apex_O1", "apex_O2", "apex_O3",
           "colossal_torch", "colossal_apex", "colossal_naive"]


class Preset(dict):
    """amp.compile keywords with a name."""

    def __init__(self, name, **options):
        super().__init__(**options)
        self.name = name

    def __repr__(self):
        return "amp.presets.%s%s" % (self.name, dict.__repr__(self))


# Apex amp.initialize(opt_level=...): O0 pure fp32; O1 per-op casts (the
# allow/deny lists) with dynamic loss scaling; O2 an fp16 model with fp32
# master weights and dynamic scaling; O3 pure fp16 without loss scaling
# (Apex's O3 uses loss_scale=1.0).
apex_O0 = Preset("apex_O0", precision="fp32", opt_level="O0",
                 loss_scale="none")
apex_O1 = Preset("apex_O1", precision="fp16", opt_level="O1",
                 loss_scale="dynamic")
apex_O2 = Preset("apex_O2", precision="fp16", opt_level="O2",
                 loss_scale="dynamic")
apex_O3 = Preset("apex_O3", precision="fp16", opt_level="O3",
                 loss_scale="none")

# Colossal-AI's AMP_TYPE.TORCH is torch.cuda.amp: autocast (O1) with a
# GradScaler (init 2**16, growth every 2000 steps).
colossal_torch = Preset("colossal_torch", precision="fp16", opt_level="O1",
                        loss_scale="dynamic", init_scale=2.0 ** 16,
                        growth_interval=2000, hysteresis=1)
# AMP_TYPE.APEX is Apex with its default config, opt_level O1.
colossal_apex = Preset("colossal_apex", **apex_O1)
colossal_apex.name = "colossal_apex"
# AMP_TYPE.NAIVE: an fp16 model with fp32 master weights (O2) and
# Colossal-AI's DynamicGradScaler defaults (growth_interval 1000,
# hysteresis 2). Its initial_scale 2**32 is above amp's largest scale
# (2**24, Apex's max_loss_scale): the scaler starts there, which is where
# Colossal-AI's would be after its first overflows.
colossal_naive = Preset("colossal_naive", precision="fp16", opt_level="O2",
                        loss_scale="dynamic", init_scale=2.0 ** 24,
                        growth_interval=1000, hysteresis=2)
