"""Typed settings: conversion, and the errors that name the offending key."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import pytest

from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import SettingsError, check_output_names, load_settings, settings_dict


@dataclass(frozen=True)
class Chain:
    sweeps: int
    burn_in: int


@dataclass(frozen=True)
class Study:
    name: str
    rate: float
    mode: Literal["fast", "exact"]
    sizes: tuple[int, ...]
    chains: dict[str, Chain | None]
    limit: int | None
    inner: Chain


RAW = {
    "name": "x",
    "rate": 1,
    "mode": "fast",
    "sizes": [1, 2],
    "chains": {"a": {"sweeps": 3, "burn_in": 1}, "b": None},
    "limit": None,
    "inner": {"sweeps": 5, "burn_in": 0},
}


def test_a_section_becomes_nested_frozen_settings():
    study = load_settings(Study, RAW)
    assert study.sizes == (1, 2) and study.rate == 1.0 and isinstance(study.rate, float)
    assert study.chains == {"a": Chain(3, 1), "b": None} and study.inner == Chain(5, 0)
    with pytest.raises(AttributeError):
        study.name = "y"
    assert settings_dict(study) == {**RAW, "rate": 1.0}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"extra": 1}, r"config has unknown keys \['extra'\]"),
        ({"inner": {"sweeps": 5}}, r"config.inner lacks the key 'burn_in'"),
        ({"sizes": [1, "2"]}, r"config.sizes\[1\] must be int, got str"),
        ({"rate": True}, r"config.rate must be float, got the boolean True"),
        ({"mode": "slow"}, r"config.mode is 'slow'; expected one of \['fast', 'exact'\]"),
        ({"chains": {"a": {"sweeps": "3", "burn_in": 1}}}, r"config.chains.a"),
        ({"limit": 2.5}, r"config.limit: 2.5 fits none of"),
    ],
)
def test_a_bad_section_names_the_key(change, message):
    with pytest.raises(SettingsError, match=message):
        load_settings(Study, {**RAW, **change})


def test_a_rule_reads_its_param_as_settings():
    ctx = RuleContext(params={"chain": {"sweeps": 2, "burn_in": 1}})
    assert ctx.settings("chain", Chain) == Chain(2, 1)
    with pytest.raises(SettingsError, match=r"params.chain lacks the key 'burn_in'"):
        RuleContext(params={"chain": {"sweeps": 2}}).settings("chain", Chain)


def test_output_names_stay_in_their_folder_and_apart():
    assert check_output_names([("spec:a", "a"), ("spec:b", "b")], "study.list") == {"a": "spec:a", "b": "spec:b"}
    with pytest.raises(SettingsError, match=r"^study\.list: 'x:a' and 'y:a' both get the name 'a', so their outputs"):
        check_output_names([("x:a", "a"), ("y:a", "a")], "study.list")
    for bad in ("", ".", "..", "up/down", "back\\slash"):
        with pytest.raises(
            SettingsError, match=rf"^study\.list: 'spec' gets the name {re.escape(repr(bad))}, .*; rename it$"
        ):
            check_output_names([("spec", bad)], "study.list", hint="rename it")
