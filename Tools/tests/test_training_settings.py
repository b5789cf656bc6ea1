"""The trainer's settings: every config file resolves, the shipped heads' config gives exactly the
settings recorded in the shipped file, and overrides, resuming and the checks of impossible
combinations behave as train_subject documents. Needs no torch and no data (seconds)."""
from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from liftpy.training.settings import (CONFIGS, NOT_RESUMED, SECTION_OF, SettingsError, parse_override, read_config,
                                      resolve)

REPO = Path(__file__).resolve().parents[2]


def recorded_args(weights: Path) -> dict:
    """The trainer's flat settings that the exporter wrote into a model file's provenance."""
    with open(weights, "rb") as f:
        header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
    provenance = header["__metadata__"]["lift.provenance"]
    start = provenance.index("(args ") + len("(args ")
    return json.loads(provenance[start:provenance.index(") at commit", start)])


def as_json(values: dict) -> dict:
    """Tuples as lists, as the recorded JSON has them."""
    return json.loads(json.dumps(values))


def test_shipped_heads_config_gives_the_settings_recorded_in_the_shipped_file():
    recorded = recorded_args(REPO / "Weights/subject-instances.safetensors")
    resolved = as_json(resolve(read_config(CONFIGS / "heads-affinity.toml"), {}, out=recorded["out"]).args())
    assert {name: resolved[name] for name in recorded} == recorded
    # settings the trainer gained after that run: at their defaults, which train as before
    defaults = as_json(resolve({}, {}).args())
    newer = {name: resolved[name] for name in set(resolved) - set(recorded)}
    assert newer == {name: defaults[name] for name in newer}
    assert len(recorded) > 60 and len(newer) < 10


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_config_resolves_reproducibly(path):
    config = read_config(path)
    settings = resolve(config, {}, out="out")
    assert settings.data.seed is not None, "a shipped run's config records its seed"
    assert set(settings.args()) == set(SECTION_OF) | {"out", "resume"}


def test_a_config_is_found_by_name():
    assert read_config("subject-views-2") == read_config(CONFIGS / "subject-views-2.toml")


def test_overrides_take_toml_values_and_plain_strings():
    assert parse_override("lr=1.5e-4") == ("lr", 1.5e-4)
    assert parse_override("val_sets=\"duts,ecssd\"") == ("val_sets", "duts,ecssd")
    assert parse_override("init=Weights/subject.safetensors") == ("init", "Weights/subject.safetensors")
    assert parse_override("synth_relations={touch = 1, gap = 1}") == ("synth_relations", {"touch": 1, "gap": 1})
    assert resolve(read_config("subject-views-2"), dict([parse_override("seed=none")])).data.seed is None
    settings = resolve(read_config("subject-views-2"), dict([parse_override("lr=1e-4"), parse_override("total_epochs=3")]))
    assert settings.optimiser.lr == 1e-4 and settings.optimiser.total_epochs == 3.0
    assert isinstance(settings.optimiser.total_epochs, float)


@pytest.mark.parametrize("override, message", [
    ("learning_rate=1", "unknown setting"),
    ("lr=fast", "expected float"),
    ("lr=none", "expected float"),
    ("batch=1.5", "expected int"),
    ("imagenet_init=1", "expected bool"),
    ("zoom_canvas=mirror", "expected one of"),
    ("threads=many", "expected str"),
    ("synth_relations={touch = -1}", "weights must be >= 0"),
    ("synth_relations={stack = 1}", "expected a table"),
    ("crop_area=[0.5]", "expected tuple"),
])
def test_bad_overrides_are_refused(override, message):
    with pytest.raises(SettingsError, match=message):
        resolve({}, dict([parse_override(override)]))


def test_a_setting_in_the_wrong_table_is_refused(tmp_path):
    config = tmp_path / "run.toml"
    config.write_text("[data]\nlr = 1e-3\n")
    with pytest.raises(SettingsError, match=r"belongs in \[optimiser\]"):
        read_config(config)
    config.write_text("[model]\nvariant = 'e0'\n")
    with pytest.raises(SettingsError, match="unknown table"):
        read_config(config)


@pytest.mark.parametrize("overrides, message", [
    ({"init_heads": "x.pt"}, "init_heads starts the instance heads of a new run"),
    ({"ema_ramp_heads": True}, "ema_ramp_heads"),
    ({"freeze_foreground": True}, "freeze_foreground trains instance heads"),
    ({"affinity_only": True}, "affinity_only"),
    ({"instance_heads": True, "init": "w", "freeze_foreground": True, "teacher": "t"}, "teacher holds"),
    ({"val_sets": "duts,coco"}, "coco unknown"),
])
def test_impossible_combinations_are_refused(overrides, message):
    with pytest.raises(SettingsError, match=message):
        resolve({}, overrides)


def test_what_follows_from_other_settings_is_filled_in():
    heads = resolve(read_config("heads-affinity"), {})
    assert heads.synth.synth_share == 1.0  # a frozen foreground trains on synthetic batches only
    assert heads.instances.centre_weight == 1.0  # the focal loss's weight
    assert resolve({}, {}).instances.centre_weight == 200.0  # the MSE's


def test_a_resumed_run_keeps_its_recipe_unless_given_again():
    recorded = resolve(read_config("subject-views-2"), {}, out="old").args()
    recorded["threads"] = "2"
    resumed = resolve({}, {"zoom_in_p": 0.5}, out="new", resume="old/last.pt", resumed_args=recorded).args()
    for name in SECTION_OF:
        if name == "zoom_in_p":
            assert resumed[name] == 0.5
        elif name in NOT_RESUMED:
            assert resumed[name] == resolve({}, {}).args()[name], name
        else:
            assert resumed[name] == recorded[name], name
    with pytest.raises(SettingsError, match="not a resumed one"):
        resolve({}, {"init_heads": "x.pt"}, resume="old/last.pt", resumed_args=recorded)
