"""Tessera: run ONNX models on the CPU, Vulkan and OpenCL from numpy arrays.

    import numpy as np, tessera
    s = tessera.Session("model.onnx", backend="cpu")
    y = s.run({"x": np.zeros((1, 3, 224, 224), np.float32)})

See docs/PYTHON.md.
"""
from ._tessera import (  # noqa: F401
    BackendUnavailable, Error, InvalidArgument, InvalidModel, NotFound, OutOfMemory, Session, Unsupported,
    __version__, devices)
