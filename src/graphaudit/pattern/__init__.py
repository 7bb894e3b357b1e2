"""The PATTERN study: regenerated PATTERN data, generator-aware predictors and their tables."""
