"""Privacy models: a registry of plug-in classes (one module per model family).

Importing the package registers every family: ``models`` holds the base classes and the
registry, each other module one family.
"""

from anon_core.privacy import (  # noqa: F401  (importing a family registers its models)
    attack_risk,
    disclosure,
    kanonymity,
    ldiversity,
    models,
    population,
    presence,
    profitability,
    risk_based,
    tcloseness,
)
