"""Release methods (generalization, Mondrian, masking, synthetic data) behind one registry.

Importing this package registers every method; see :mod:`anon_core.methods.registry`.
"""

from anon_core.methods import (  # noqa: F401 - importing registers the methods
    aim,
    generalization,
    geomask,
    microaggregation,
    mondrian,
    mst,
    noise,
    pram,
    sdv_synth,
    swapping,
)
from anon_core.methods.registry import (
    METHODS,
    MethodContext,
    MethodOutput,
    MethodParam,
    ReleaseMethod,
    make_method,
    method_available,
    register_method,
)

__all__ = [
    "METHODS",
    "MethodContext",
    "MethodOutput",
    "MethodParam",
    "ReleaseMethod",
    "make_method",
    "method_available",
    "register_method",
]
