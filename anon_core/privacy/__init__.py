"""Privacy models: a registry of plug-in classes (one module per model family).

Importing the package registers every family.
"""

from anon_core.privacy import attack_risk, models, risk_based  # noqa: F401  (registers the models)
