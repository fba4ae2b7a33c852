"""Population models: estimating population uniqueness from a sample (Pitman, Zayatz, SNB,
Dankar) and population tables."""
