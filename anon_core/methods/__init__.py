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
    ReleaseMethod,
    make_method,
    method_available,
    register_method,
)
from anon_core.params import Param

__all__ = [
    "METHODS",
    "MethodContext",
    "MethodOutput",
    "Param",
    "ReleaseMethod",
    "make_method",
    "method_available",
    "register_method",
]
