"""Backend ``ubgold``: UB-GOLD's own detector modules, imported from a verified tree and run by the trainer."""

CODE_NAME = "UB-GOLD-c940457"
"""The registry name of UB-GOLD's tree at the pinned commit (:mod:`graphaudit.data.code`); torch-free here, so the
workflow's parse names the tree without loading the loader's torch stack."""
