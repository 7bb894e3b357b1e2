"""The pattern study (paper 000): PATTERN solved from memory, and generator-aware baselines for CLUSTER and
Minesweeper.

One subpackage per benchmark: :mod:`~graphaudit.pattern.planted` (PATTERN: generator, pattern library,
pattern-blind predictor, likelihood matcher, scores), :mod:`~graphaudit.pattern.cluster` (CLUSTER: generator,
Gibbs sampler with block swaps) and :mod:`~graphaudit.pattern.minesweeper` (board, belief propagation, strip
sampler); :mod:`~graphaudit.pattern.neural` retrains CKGConv and GRIT on the PATTERN sets (RRWP cache, training
jobs on :mod:`graphaudit.nn.pattern_trainer`, per-node predictions) under the protocols of
:mod:`~graphaudit.pattern.protocols` (released, held-out, fresh-trained), each checked by the round trip of
:mod:`~graphaudit.pattern.round_trip`. What two of them share sits at the top:
:mod:`~graphaudit.pattern.blocks` (the block-model kernels),
:mod:`~graphaudit.pattern.dense` (the dense graph store), :mod:`~graphaudit.pattern.release` (the
benchmarking-gnns releases), :mod:`~graphaudit.pattern.shards` and :mod:`~graphaudit.pattern.tidy` (job
files), :mod:`~graphaudit.pattern.settings` (the config section). What the rule files compute at parse time is in
:mod:`~graphaudit.pattern.plan` and :mod:`~graphaudit.pattern.neural_plan`, which load neither torch nor the rules'
numerical stack. Every table and figure is one function of :mod:`~graphaudit.pattern.tables` or
:mod:`~graphaudit.pattern.figures`, named after it.
"""
