"""Re-identification and disclosure risk of a table or a release: class-based risk (prosecutor,
journalist, marketer), SUDA, weighted risk, attribute disclosure, QI analysis and the population
report."""
