"""PATTERN (regenerated): the generator, the pattern library, the pattern-blind predictor, the likelihood matcher
and the largest-match rule, the scores of Tables 2, 3, 6, 7 and 8."""
