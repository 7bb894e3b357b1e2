"""The llmpattern study: "How Do Large Language Models Understand Graph Patterns?" (ICLR 2025).

Foundation modules: :mod:`~graphaudit.llmpattern.patterns` (the nine primitive patterns),
:mod:`~graphaudit.llmpattern.generators` (seeded synthetic sets for every task and scale),
:mod:`~graphaudit.llmpattern.solvers` (exact ground truth) and :mod:`~graphaudit.llmpattern.datasets`
(the item record format, JSONL storage, Table 12 statistics). Prompts, parsers, scorers and responders
read only item records.
"""
