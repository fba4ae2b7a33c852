"""Application services: one path from a configuration (+ frame) to the problem, the release and its figures."""
