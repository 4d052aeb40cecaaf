"""The error of the torch.export importer."""


class ImportError_(Exception):
    """A node amp cannot import; the importer adds the op, the module path
    and the user's source line (amp.CompileError to the caller)."""
