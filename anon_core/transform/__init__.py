"""The anonymization problem and the choice of its transformation: the :class:`Problem` (a dataset
with roles, hierarchies, frequency table and evaluator), the configured-or-searched choice, the
attack-bounded search and Mondrian local recoding."""
