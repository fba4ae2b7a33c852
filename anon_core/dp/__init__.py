"""The dp package. Its public names are re-exported here so callers write ``anon_core.dp.NAME``."""

from anon_core.dp import core as _core
from anon_core.dp.core import *  # noqa: F401,F403


def __getattr__(
    name: str,
):  # the names core keeps out of __all__ (constants, helpers used by pages)
    return getattr(_core, name)
