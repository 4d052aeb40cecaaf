"""The table of aten op handlers: each op family's module registers its
handlers with @handles("aten.add.Tensor", ...)."""

HANDLERS = {}


def handles(*names):
    def register(function):
        for name in names:
            assert name not in HANDLERS, name
            HANDLERS[name] = function
        return function

    return register
