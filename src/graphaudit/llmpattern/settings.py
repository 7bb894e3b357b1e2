"""The ``llmpattern`` config section as typed settings (defaults live in config/config.yaml only), and the
slices of it that each rule passes as ``params``: a set's generator reads only its own counts, a responder
job only the prompt settings, so changing one key reruns only the jobs that read it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from graphaudit.common.settings import SettingsError, check_output_names, settings_dict
from graphaudit.llmpattern.responders import check_model_options, parse_spec

Scale = Literal["small", "medium", "large"]
Style = Literal["zero_shot", "cot"]
Format = Literal["AL", "EL"]
IsomorphismMode = Literal["faithful", "hardened"]
Semantics = Literal["induced", "non_induced"]  # occurrence semantics of every truth and success test (spec pitfall 1)


@dataclass(frozen=True)
class TranslationSettings:
    per_pattern: int


@dataclass(frozen=True)
class DetectionSettings:
    per_n: int
    styles: tuple[Style, ...]


@dataclass(frozen=True)
class IsomorphismSettings:
    modes: tuple[IsomorphismMode, ...]


@dataclass(frozen=True)
class ModificationSettings:
    per_n: int


@dataclass(frozen=True)
class FrequentSettings:
    per_n: int
    turns: dict[Scale, int] | None  # turns of 10 graphs per scale; a scale left out (or null) takes the repository's


@dataclass(frozen=True)
class Ba2motifSettings:
    per_class: int
    test_per_class: int
    turns: int
    per_label: int


@dataclass(frozen=True)
class MoleculeSettings:
    """T10: the registry's SMILES sets to run, molecules per class, and user-supplied CSV files by set name."""

    datasets: tuple[str, ...]
    per_class: int
    files: dict[str, str]


@dataclass(frozen=True)
class RealworldSettings:
    """T11: the registry data sets to run, epochs of turns, caps (None = all) and whether to download."""

    datasets: tuple[str, ...]
    epochs: int
    max_turns: int | None
    max_test_per_class: int | None
    download: bool


@dataclass(frozen=True)
class LlmpatternSettings:
    scales: tuple[Scale, ...]
    semantics: Semantics
    translation: TranslationSettings
    detection: DetectionSettings
    isomorphism: IsomorphismSettings
    modification: ModificationSettings
    frequent: FrequentSettings
    ba2motif: Ba2motifSettings
    molecules: MoleculeSettings
    realworld: RealworldSettings
    n_eval: int
    formats: tuple[Format, ...]
    responders: tuple[str, ...]
    model: dict[str, Any]  # every openai-compatible responder's options
    models: dict[str, dict[str, Any]]  # model id -> its own options, over ``model`` (key by key)
    paper_values: str


# ---- the responders' names (every output of a responder is under its name) ------------------------------
RESPONDER_NAMES = (
    "a baseline or model is named after its argument, a replay after its file's stem (replay:runs/a/answers.jsonl "
    "is 'replay-answers'); drop a responder or rename a replay file"
)


def responder_slug(spec: str) -> str:
    """A responder's name in paths: the baseline or model name, ``replay-<stem>`` of a replay file, ``oracle``;
    a name with a path separator or a space has every character outside ``[A-Za-z0-9._-]`` replaced by ``_``."""
    kind, _, argument = spec.partition(":")
    name = f"replay-{Path(argument).stem}" if kind == "replay" else argument or kind
    if any(c in name for c in "/\\ "):
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return name


def responder_names(responders: Sequence[str], key: str = "llmpattern.responders") -> dict[str, str]:
    """Name -> spec of the configured responders, checked at parse time: every spec well formed, every replay
    file present, every name inside its folder and no two specs with one name (both would vanish into one)."""
    for spec in responders:
        try:
            kind, argument = parse_spec(spec)
        except ValueError as error:
            raise SettingsError(f"{key}: {error}") from None
        if kind == "replay" and not Path(argument).is_file():
            raise SettingsError(
                f"{key}: {spec!r} replays {argument}, which is not a file (a relative path starts at the workflow "
                f"folder, {Path.cwd()}); fix the path, or write the answers there first"
            )
    return check_output_names(((spec, responder_slug(spec)) for spec in responders), key, RESPONDER_NAMES)


# ---- the models' settings (a block per model over the shared one) --------------------------------------
def model_options(section: LlmpatternSettings, spec: str) -> dict[str, Any] | None:
    """The options of the responder ``spec``: for ``openai-compatible:<model>``, ``llmpattern.model`` with the
    model's own block ``llmpattern.models.<model>`` over it, key by key (a key set to null there leaves the field
    out of the request, as o1-style models need for ``temperature`` and ``max_tokens``); None for the others."""
    kind, _, model = spec.partition(":")
    if kind != "openai-compatible":
        return None
    return {**section.model, **section.models.get(model, {})}


def check_models(section: LlmpatternSettings) -> None:
    """Check at parse time that every block of ``llmpattern.models`` belongs to a configured model and that each
    model's options are ones its responder takes, so a typo stops the workflow before a request is sent."""
    models = {spec.partition(":")[2] for spec in section.responders if spec.startswith("openai-compatible:")}
    for name in section.models:
        if name not in models:
            listed = ", ".join(sorted(models)) or "none"
            raise SettingsError(
                f"llmpattern.models.{name}: no responder openai-compatible:{name} is configured (models: {listed}); "
                "add it to llmpattern.responders or drop the block"
            )
    for name in sorted(models):
        try:
            check_model_options(name, model_options(section, f"openai-compatible:{name}"))
        except ValueError as error:
            block = f"llmpattern.models.{name} (over llmpattern.model)"
            where = block if name in section.models else "llmpattern.model"
            raise SettingsError(f"{where}: {error}") from None


# ---- what one set's generator reads (rule llmpattern_items) --------------------------------------------
@dataclass(frozen=True)
class TranslationItems:
    per_pattern: int


@dataclass(frozen=True)
class DetectionItems:
    seed: int
    scales: tuple[Scale, ...]
    per_n: int
    semantics: Semantics


@dataclass(frozen=True)
class IsomorphismItems:
    seed: int
    modes: tuple[IsomorphismMode, ...]


@dataclass(frozen=True)
class KcoreItems:
    """The 3-core set reads nothing but the undirected detection graphs."""


@dataclass(frozen=True)
class ModificationItems:
    seed: int
    scales: tuple[Scale, ...]
    per_n: int
    semantics: Semantics


@dataclass(frozen=True)
class FrequentItems:
    seed: int
    scales: tuple[Scale, ...]
    per_n: int
    turns: dict[Scale, int] | None
    semantics: Semantics


@dataclass(frozen=True)
class DiscriminativeItems:
    seed: int
    per_class: int
    test_per_class: int
    turns: int
    per_label: int


ItemSettings = (
    TranslationItems
    | DetectionItems
    | IsomorphismItems
    | KcoreItems
    | ModificationItems
    | FrequentItems
    | DiscriminativeItems
)
ITEM_SETTINGS: dict[str, type] = {
    "translation": TranslationItems,
    "detection": DetectionItems,
    "isomorphism": IsomorphismItems,
    "kcore": KcoreItems,
    "modification": ModificationItems,
    "frequent": FrequentItems,
    "discriminative": DiscriminativeItems,
}
"""Set name -> the settings its generator reads (the sets, in the order they are listed everywhere)."""


def item_settings(section: LlmpatternSettings, seed: int, set_name: str) -> ItemSettings:
    """What the generator of ``set_name`` reads from the section (and the workflow seed)."""
    if set_name == "translation":
        return TranslationItems(section.translation.per_pattern)
    if set_name == "detection":
        return DetectionItems(seed, section.scales, section.detection.per_n, section.semantics)
    if set_name == "isomorphism":
        return IsomorphismItems(seed, section.isomorphism.modes)
    if set_name == "kcore":
        return KcoreItems()
    if set_name == "modification":
        return ModificationItems(seed, section.scales, section.modification.per_n, section.semantics)
    if set_name == "frequent":
        return FrequentItems(seed, section.scales, section.frequent.per_n, section.frequent.turns, section.semantics)
    if set_name == "discriminative":
        ba = section.ba2motif
        return DiscriminativeItems(seed, ba.per_class, ba.test_per_class, ba.turns, ba.per_label)
    raise ValueError(f"unknown llmpattern set {set_name!r}; sets are {', '.join(ITEM_SETTINGS)}")


def item_params(section: LlmpatternSettings, seed: int, set_name: str) -> dict[str, Any]:
    """:func:`item_settings` as plain data, the ``params`` of one ``llmpattern_items`` job."""
    return settings_dict(item_settings(section, seed, set_name))


# ---- what one responder job reads (rule llmpattern_respond) --------------------------------------------
@dataclass(frozen=True)
class RespondSettings:
    """One responder on one set: the evaluated subset (``seed``, ``n_eval``), the prompt formats, the detection
    prompt styles (None for a set without detection prompts), the responder, for a model its endpoint
    settings (:func:`model_options`; None for the offline responders), and the occurrence semantics of the
    success tests (the offline responders answer by it too)."""

    seed: int
    n_eval: int
    formats: tuple[Format, ...]
    styles: tuple[Style, ...] | None
    responder: str
    model: dict[str, Any] | None
    semantics: Semantics


def respond_params(section: LlmpatternSettings, seed: int, set_name: str, responder: str) -> dict[str, Any]:
    """The ``params`` of one ``llmpattern_respond`` job for the responder spec ``responder``."""
    styles = section.detection.styles if set_name == "detection" else None
    return settings_dict(
        RespondSettings(
            seed,
            section.n_eval,
            section.formats,
            styles,
            responder,
            model_options(section, responder),
            section.semantics,
        )
    )


# ---- what the real-world item rules read (rule llmpattern_realworld_items) ------------------------------
@dataclass(frozen=True)
class MoleculeItems:
    """T10: the CSV each runnable SMILES set is read from, and the molecules sampled per class."""

    files: dict[str, str]
    per_class: int


@dataclass(frozen=True)
class RealworldItems:
    """T11: the runnable data sets (their GraphSets are the rule's inputs), epochs and caps."""

    seed: int
    datasets: tuple[str, ...]
    epochs: int
    max_turns: int | None
    max_test_per_class: int | None


def molecule_item_params(section: LlmpatternSettings, files: dict[str, str]) -> dict[str, Any]:
    """The ``params`` of the T10 item job, ``files`` being the runnable sets' CSVs."""
    return settings_dict(MoleculeItems(dict(files), section.molecules.per_class))


def realworld_item_params(section: LlmpatternSettings, seed: int, datasets: Sequence[str]) -> dict[str, Any]:
    """The ``params`` of the T11 item job for the runnable ``datasets``."""
    real = section.realworld
    return settings_dict(RealworldItems(seed, tuple(datasets), real.epochs, real.max_turns, real.max_test_per_class))
