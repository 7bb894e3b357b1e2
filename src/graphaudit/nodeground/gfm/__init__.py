"""NodeGround's graph foundation models: the adapter interface, the artifact registry and GraphAny's adapter.

``config/nodeground/gfms.yaml`` lists the six GFMs with their official artifacts (or why they cannot be
obtained); rule ``nodeground_gfm`` (:func:`graphaudit.nodeground.gfm.gfm_trials.nodeground_gfm`) writes one
record per (GFM, dataset, split, partition), ``status=unavailable`` with the reason where an artifact or an
adapter is missing.
"""
