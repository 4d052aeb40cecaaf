"""Precision debugging from Python: Trainer.find_nonfinite, the equivalent
of amp-run --find-nonfinite (docs/Debugging.md, docs/Python.md).

The re-run of the step and the report are the C++ library code amp-run
uses (lib/Host, NonfiniteFinder); this module compiles the
instrumented step (the same export and options, with every op checked) on
demand and wraps the reports."""
import json
import shutil
import tempfile
import warnings

from . import _amp

__all__ = ["NonfiniteOp", "NonfiniteReport", "NonfiniteFinder"]


class _Record:
    """Fields named as the keys of amp-run's JSON report."""

    def __init__(self, fields):
        self._fields = dict(fields)
        for key, value in self._fields.items():
            setattr(self, key, value)

    def __eq__(self, other):
        return type(other) is type(self) and self.to_dict() == other.to_dict()

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % item for item in self._fields.items()))


class NonfiniteOp(_Record):
    """The first op whose float results held inf or NaN while its float
    operands were finite: index, kind, name, location, precision,
    operand_min, operand_max, finite_in_f32 (None: no f32 form)."""

    def to_dict(self):
        return dict(self._fields)


class NonfiniteReport(_Record):
    """One re-run step: step (1-based), trigger (what went inf or NaN; ""
    for a step "every" checked whose loss and state stayed finite), op (a
    NonfiniteOp, or None when the state before the step already held inf
    or NaN), text (the report as amp-run prints it). to_dict() is the
    object amp-run writes to --find-nonfinite-report."""

    def __init__(self, json_text, text):
        fields = json.loads(json_text)
        if fields["op"] is not None:
            fields["op"] = NonfiniteOp(fields["op"])
        super().__init__(fields)
        self.text = text

    def to_dict(self):
        fields = dict(self._fields)
        if self.op is not None:
            fields["op"] = self.op.to_dict()
        return fields

    def __str__(self):
        return self.text


def check_mode(mode):
    """find_nonfinite's mode: "first" (also True) or "every"; None or
    False is off (returned as None)."""
    if mode is None or mode is False:
        return None
    if mode is True:
        return "first"
    if mode not in ("first", "every"):
        raise ValueError("find_nonfinite=%r is not one of True, 'first', "
                         "'every'" % (mode,))
    return mode


class NonfiniteFinder:
    """Trainer.find_nonfinite's state: the native finder of the trainer's
    current step (a step compiled for another batch size gets its own)."""

    def __init__(self, trainer, mode):
        mode = check_mode(mode)
        if trainer._source is None:
            raise _amp.AmpError("find_nonfinite needs a trainer made by "
                                "amp.compile")
        self._trainer = trainer
        self._mode = mode
        self._native = None
        self._state = None
        self.reports = []

    def _finder(self):
        """The native finder of the current state, None once "first" has
        reported."""
        state = self._trainer._state
        if self._state is not state:
            self._state = state
            self._native = _amp.NonfiniteFinder(state, self._mode,
                                                self._build)
        if self._mode == "first" and self.reports:
            return None
        return self._native

    def _build(self):
        """Compiles the instrumented step for the current input shapes; the
        native finder loads it at once, then the file is removed."""
        trainer = self._trainer
        shapes = [trainer._by_name[n]["shape"] for n in trainer._input_names]
        self._directory = tempfile.mkdtemp(prefix="amp-")
        return trainer._source.build(shapes, self._directory,
                                     instrument_nonfinite=True)

    def train_step(self):
        """The trainer's step, checked; returns (loss, skipped)."""
        native = self._finder()
        state = self._trainer._state
        if native is None or not native.active:
            return state.train_step()
        native.before_step()
        loss, skipped = state.train_step()
        self._directory = None
        try:
            found = native.after_step(self._trainer.steps + 1, loss)
        finally:
            if self._directory:
                shutil.rmtree(self._directory, ignore_errors=True)
        if found is not None:
            report = NonfiniteReport(*found)
            self.reports.append(report)
            warnings.warn("amp: " + report.text.rstrip("\n"))
        return loss, skipped
