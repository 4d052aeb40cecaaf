"""The exceptions of the amp package and the mapping of ONNX node names
(torch.onnx.export names nodes after the module path: /layer1/conv/Conv)
back to module paths in compiler errors."""
import re

from ._amp import AmpError


class ExportError(AmpError):
    """torch.onnx.export could not export the module."""


class CompileError(AmpError):
    """amp could not compile the exported model (an unsupported op, a shape
    or dtype the pipeline rejects); the message names the module."""


# "/layer1/0/conv1/Conv" or "/layer1/0/conv1/Conv_3": a module path, then
# the ONNX op type (with torch's de-duplicating suffix).
_NODE_NAME = re.compile(
    r"(?<![\w.])('?)((?:/[A-Za-z0-9_.]+)+)/([A-Z][A-Za-z]*)(_\d+)?\1")


def module_path(node_name):
    """The module path of an ONNX node named by torch.onnx.export ("layer1.0.
    conv1" for "/layer1/0/conv1/Conv"); None for other names."""
    match = _NODE_NAME.fullmatch(node_name)
    if not match:
        return None
    return match.group(2).strip("/").replace("/", ".")


def with_module_paths(message):
    """Appends "(module 'layer1.conv')" after every torch node name in a
    compiler message, once per name."""
    seen = set()

    def annotate(match):
        path = match.group(2).strip("/").replace("/", ".")
        text = match.group(0)
        if text in seen:
            return text
        seen.add(text)
        return "%s (module '%s')" % (text, path)

    return _NODE_NAME.sub(annotate, message)
