"""A training run's settings: the recipe a config file holds (Tools/training/configs/*.toml), with
the defaults of every setting it leaves out, what `--set NAME=VALUE` overrides, and what a resumed
run takes from its checkpoint.

A config file has one table per concept below (`[start]`, `[data]`, `[optimiser]`, `[loss]`,
`[validation]`, `[run]`, `[instances]`, `[synth]`); each setting keeps one name everywhere: in the
file, in `--set`, and in the flat `args` dict every checkpoint records (`Settings.args`), which the
exporter writes into the model file's provenance. `python -m liftpy.training.train_subject
--list-settings` prints them all with their defaults.
"""
from __future__ import annotations

import dataclasses
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from liftpy.duts_data import VAL_SETS
from liftpy.instances.composite import RELATIONS

CONFIGS = Path(__file__).resolve().parent / "configs"


def setting(default, doc, choices=None):
    """A dataclass field with its one-line description and, for a string, the values it may take."""
    return field(default=default, metadata={"doc": doc, "choices": choices})


@dataclass
class Start:
    """Where the run's weights begin (none of these: random initialisation)."""
    variant: str = setting("s", "network size (subject_model.VARIANTS)")
    init: str | None = setting(None, "an exported .safetensors to start from (fresh optimiser; BatchNorm "
                                     "re-expressed and side heads refitted: training_recipe.calibrate_from_export)")
    person_init: str | None = setting(None, "a person model .safetensors that initialises the encoder")
    imagenet_init: bool = setting(False, "variant e0's encoder from EfficientNet-Lite0's ImageNet weights "
                                         "(liftpy.efficientnet_lite)")
    grow_from: str | None = setting(None, "a best.pt/last.pt of a smaller variant, grown into `variant` "
                                          "(subject_model.grow: the same outputs at the start)")


@dataclass
class Data:
    """The training pairs and the augmented views made of them."""
    size: int = setting(256, "training views' side, pixels")
    batch: int = setting(16, "views per step (synthetic samples included)")
    seed: int | None = setting(None, "data order and augmentation (none: a new one per run, recorded in its "
                                     "checkpoints, so that runs do not replay the same first batches)")
    train_extra: bool = setting(False, "also train on the 4,019 DUTS-TE pairs outside the validation 500")
    zoom_out_p: float = setting(0.5, "share of views pasted smaller on their own blurred surroundings")
    zoom_canvas: str = setting("replicate", "how a zoom-out's surroundings grow from the crop's edges: mirrored "
                                            "(shows copies of the subject labelled background) or edge pixels "
                                            "repeated", ("reflect", "replicate"))
    crop_area: tuple[float, float] = setting((0.8, 1.0), "random resized crop: share of the photo's area kept (lo, hi)")
    zoom_in_p: float = setting(0.0, "share of views cropped around the object so it fills the frame (ECSSD-like; "
                                    "such views are not zoomed out)")
    zoom_in_area: tuple[float, float] = setting((0.3, 0.6), "zoom-in crop: share of the photo's area kept (lo, hi)")
    paste_p: float = setting(0.0, "share of views onto which another pair's object is pasted (mask: the union)")
    paste_scale: tuple[float, float] = setting((0.4, 0.9), "copy-paste: the pasted object's longer side as a share "
                                                           "of the view's shorter side (lo, hi)")
    distill: float = setting(0.0, "share D of every target taken from the teacher maps (training.teacher_maps, "
                                  "written first): (1 - D) mask + D teacher")


@dataclass
class Optimiser:
    """AdamW, the learning-rate schedule and the weights' moving average."""
    lr: float = setting(2e-3, "peak learning rate of the decoder")
    wd: float = setting(0.01, "AdamW weight decay")
    warmup_steps: int = setting(1000, "linear warm-up, steps")
    total_epochs: float = setting(60.0, "length of the cosine schedule, which may span resumed runs")
    ema: float = setting(0.999, "decay of the weights' exponential moving average")
    ema_ramp_heads: bool = setting(False, "with instance heads and `init`: the EMA of the fresh instance.* tensors "
                                          "ramps up ((1 + step) / (10 + step)); the rest keeps the full decay")
    encoder_lr_scale: float = setting(1.0, "the encoder's learning rate as a share of the decoder's")
    instance_lr_scale: float = setting(1.0, "the instance heads' learning rate as a share of the decoder's")


@dataclass
class Loss:
    """The foreground loss (BCE + soft IoU on the final and every side output) and its targets."""
    bg_weight: float = setting(2.0, "BCE weight of background pixels (> 1 costs false foreground more)")
    edge_weight: float = setting(0.0, "weight pixels near the outline up to 1 + this (F3Net: 5); 0 = plain")
    teacher: str | None = setting(None, "an exported .safetensors, frozen: its foreground probabilities on every "
                                        "sample are a second target (joint training only)")
    distill_weight: float = setting(1.0, "with `teacher`: weight of the loss against its probabilities")
    synth_fg_weight: float = setting(1.0, "weight of the foreground loss on synthetic composites (0 drops it; "
                                          "DUTS views and untouched photos keep 1)")


@dataclass
class Validation:
    """Scoring model and EMA on the validation 500s after every epoch."""
    val_size: int = setting(256, "validation input side, pixels")
    val_every: int = setting(0, "also validate every N steps")
    val_sets: str = setting("duts", "comma-separated validation sets (duts, ecssd); best.pt is chosen by the mean "
                                    "cut MAE over them")


@dataclass
class Run:
    """The process: threads, checkpoints, logging and when to stop."""
    threads: str = setting("auto", "torch threads, or auto: 2 while the machine is otherwise idle, 1 while the "
                                   "1-minute load average is above 3.5")
    ckpt_minutes: float = setting(10.0, "minutes between writes of last.pt")
    snapshot_every: int = setting(0, "also keep model and EMA every N steps in snapshots/step-N.pt (for "
                                     "soup_checkpoints PATH:model)")
    max_hours: float = setting(1e9, "stop (with a checkpoint) after this many hours")
    max_steps: int = setting(0, "stop (with a checkpoint) after this many steps of this invocation (0: no limit)")
    log_every: int = setting(50, "steps per training log line")


@dataclass
class Instances:
    """The instance heads (subject_model.InstanceHeads): their design, where they start, their loss."""
    instance_heads: bool = setting(False, "add the instance heads (centre, offset, boundary at /4), trained on "
                                          "the synthetic share of each batch")
    no_boundary_head: bool = setting(False, "instance heads without the boundary map")
    instance_context: str | None = setting(None, "heads with a light decoder of their own that also reads the /8, "
                                                 "/16 and /32 maps of the decoder or the encoder", ("decoder", "encoder"))
    instance_private: bool = setting(False, "with instance_context encoder: those maps from a trainable copy of the "
                                            "encoder's blocks past /4, seeded from `init`'s encoder")
    instance_fine: bool = setting(False, "with instance_context: the heads' /4 mix also reads the encoder's /4 map")
    instance_context_width: int = setting(64, "with instance_context: channels of its /16 mix (its /8 mix: 3/4)")
    affinity_head: bool = setting(False, "the affinity branch too (same-instance logits of cell pairs)")
    affinity_fine: bool = setting(False, "the affinity trunk reads the encoder's /4 map too (a loaded narrower "
                                         "trunk is widened with zero weights)")
    affinity_blocks: int = setting(0, "residual dilated 3x3 blocks after the affinity trunk (new ones start as "
                                      "identities)")
    init_heads: str | None = setting(None, "with instance_heads and `init`: the heads start from this checkpoint's "
                                           "EMA or exported .safetensors' heads instead of fresh")
    freeze_foreground: bool = setting(False, "with instance_heads and `init`: train the heads only, on all-synthetic "
                                             "batches; the foreground network stays bit-identical (eval mode)")
    affinity_only: bool = setting(False, "with affinity_head, init_heads and freeze_foreground: only the affinity "
                                         "branch learns; every other head stays bit for bit as loaded")
    centre_loss: str = setting("mse", "the centre heatmap's loss: Panoptic-DeepLab's MSE or CenterNet's "
                                      "penalty-reduced focal loss", ("mse", "focal"))
    centre_target: str = setting("mass", "an instance's centre: its visible pixels' centre of mass or innermost "
                                         "pixel (instances.centres.poles)", ("mass", "pole"))
    centre_weight: float | None = setting(None, "centre loss weight (none: 200 with mse, 1 with focal)")
    offset_weight: float = setting(0.01, "offset L1 weight, offsets in input pixels")
    boundary_weight: float = setting(1.0, "touching-boundary BCE weight")
    affinity_weight: float = setting(1.0, "the affinity term's weight (training_recipe.affinity_loss)")
    affinity_photo_weight: float = setting(1.0, "the untouched photos' affinity pairs weigh this much more than "
                                                 "the composites' in the same-instance mean")
    photo_heads: str = setting("all", "what the untouched photos teach the heads: all (one instance), background "
                                      "(only no centre off the object; needs centre_loss focal) or compact (all "
                                      "where the region's solidity is at least compact_solidity)",
                               ("all", "background", "compact"))
    photo_weight: float = setting(0.0, "photo_heads background / compact: the weight (0-1) at which the photos "
                                       "they leave out still teach their region as one instance")
    compact_solidity: float = setting(0.9, "photo_heads compact: the least region / convex hull area that still "
                                           "teaches its region as one instance")


@dataclass
class Synth:
    """The synthetic stream (liftpy.instances.synth): touching composites and untouched photos."""
    synth_share: float = setting(0.0, "share of each batch made by the synthetic stream; needed by instance_heads "
                                      "(freeze_foreground: 1)")
    synth_workers: int = setting(1, "processes making the synthetic samples")
    synth_photo_p: float = setting(0.2, "share of the stream that is untouched single-object DUTS-TR photos")
    synth_photo_paste_p: float = setting(0.0, "share of those photos given 1 or 2 more objects pasted against "
                                              "their own")
    synth_extra: bool = setting(False, "the stream's objects, backgrounds and photos also come from the DUTS-TE "
                                       "extra pairs the instance tuning sets do not use")
    synth_shapes: str = setting("all", "how often each foreground is drawn: all equally often, or (with "
                                       "synth_extra) with the extra pairs' solidity histogram", ("all", "extra"))
    synth_variety: float = setting(0.0, "each pasted foreground's new look, 0-1 (composite.Params.variety)")
    synth_relations: dict | None = setting(None, "weights of how each composite's later objects relate to an "
                                                 "earlier one, e.g. {touch = 0.25, overlap = 0.55, gap = 0.1, "
                                                 "split = 0.1} (none: synth.RELATION_P)")


SECTIONS = {"start": Start, "data": Data, "optimiser": Optimiser, "loss": Loss, "validation": Validation,
            "run": Run, "instances": Instances, "synth": Synth}
SECTION_OF = {f.name: section for section, cls in SECTIONS.items() for f in dataclasses.fields(cls)}
# What a resumed run does not take from its checkpoint: the process's own settings, and the schedule,
# whose numbers in use (warm-up, peak rate, length) the checkpoint keeps apart (schedule.Schedule).
NOT_RESUMED = {"threads", "ckpt_minutes", "snapshot_every", "max_hours", "max_steps", "synth_workers",
               "lr", "warmup_steps", "total_epochs"}


class SettingsError(ValueError):
    """A config file, an override or a combination of settings that no run can use."""


@dataclass
class Settings:
    """Every setting of one run, by concept; `out` and `resume` are the run's folder and the
    checkpoint it continues."""
    start: Start = field(default_factory=Start)
    data: Data = field(default_factory=Data)
    optimiser: Optimiser = field(default_factory=Optimiser)
    loss: Loss = field(default_factory=Loss)
    validation: Validation = field(default_factory=Validation)
    run: Run = field(default_factory=Run)
    instances: Instances = field(default_factory=Instances)
    synth: Synth = field(default_factory=Synth)
    out: str | None = None
    resume: str | None = None

    def args(self) -> dict:
        """The flat {name: value} every checkpoint records (and export_subject names in provenance)."""
        flat = {"out": self.out, "resume": self.resume}
        for section in SECTIONS:
            flat.update(dataclasses.asdict(getattr(self, section)))
        return flat

    def set(self, name: str, value) -> None:
        """Sets one setting by its flat name, checked and converted to the setting's type."""
        if name not in SECTION_OF:
            raise SettingsError(f"unknown setting {name!r} (--list-settings lists them)")
        section = getattr(self, SECTION_OF[name])
        spec = next(f for f in dataclasses.fields(section) if f.name == name)
        setattr(section, name, _converted(spec, value))


def _converted(spec: dataclasses.Field, value):
    """`value` as the type the field declares (a TOML integer where a float is due, a list where a
    pair is due), or SettingsError."""
    kind, name = spec.type, spec.name
    if value == "none" and "None" in kind:  # --set seed=none: TOML has no null
        value = None
    if value is None:
        if "None" not in kind:
            raise SettingsError(f"{name} needs a value")
        return None
    if kind.startswith("dict"):
        return _relations(name, value)
    try:
        if kind.startswith("bool"):
            if not isinstance(value, bool):
                raise TypeError
        elif kind.startswith("int"):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError
        elif kind.startswith("float"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError
            value = float(value)
        elif kind.startswith("tuple"):
            if len(value) != 2:
                raise TypeError
            value = tuple(float(v) for v in value)
        elif name == "threads":
            value = str(value)
            if value != "auto" and not value.isdigit():
                raise TypeError
        elif not isinstance(value, str):
            raise TypeError
    except (TypeError, ValueError):
        raise SettingsError(f"{name} = {value!r}: expected {kind}") from None
    choices = spec.metadata.get("choices")
    if choices and value not in choices:
        raise SettingsError(f"{name} = {value!r}: expected one of {', '.join(choices)}")
    return value


def _relations(name, value) -> dict:
    """synth_relations: {relation: weight} over composite.RELATIONS, weights >= 0 with a positive sum."""
    if not isinstance(value, dict) or not value or any(k not in RELATIONS for k in value):
        raise SettingsError(f"{name} = {value!r}: expected a table of weights for {', '.join(RELATIONS)}")
    weights = {k: float(v) for k, v in value.items()}
    if min(weights.values()) < 0 or sum(weights.values()) <= 0:
        raise SettingsError(f"{name} = {value!r}: the weights must be >= 0 with a positive sum")
    return weights


def read_config(path) -> dict:
    """A config file's settings, flat {name: value}: `path` itself, or the name of a file in
    Tools/training/configs/ (`subject-views` or `subject-views.toml`). Every table and name must be known."""
    path = Path(path)
    if not path.is_file() and (CONFIGS / path.with_suffix(".toml").name).is_file():
        path = CONFIGS / path.with_suffix(".toml").name
    try:
        tables = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SettingsError(f"{path}: {error}") from None
    flat = {}
    for section, values in tables.items():
        if section not in SECTIONS or not isinstance(values, dict):
            raise SettingsError(f"{path}: unknown table [{section}] (tables: {', '.join(SECTIONS)})")
        for name, value in values.items():
            if SECTION_OF.get(name) != section:
                where = f"; it belongs in [{SECTION_OF[name]}]" if name in SECTION_OF else ""
                raise SettingsError(f"{path}: [{section}] has no setting {name!r}{where}")
            flat[name] = value
    return flat


def parse_override(text: str) -> tuple[str, object]:
    """`NAME=VALUE` with VALUE in TOML's syntax (`lr=1.5e-4`, `val_sets="duts,ecssd"`,
    `synth_relations={touch=0.5, gap=0.5}`); a VALUE that is no TOML value is taken as a string
    (`init=Weights/subject.safetensors`), and `none` unsets a setting that may be unset
    (`seed=none`: a new seed)."""
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise SettingsError(f"--set {text!r}: expected NAME=VALUE")
    try:
        value = tomllib.loads(f"value = {raw.strip()}")["value"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()
    return name, value


def resolve(config: dict, overrides: dict, out: str | None = None, resume: str | None = None,
            resumed_args: dict | None = None) -> Settings:
    """The run's settings: the defaults, then (when resuming) the settings the checkpoint's run
    recorded, except NOT_RESUMED, then the config file's, then the overrides. Checks the
    combinations no run can use and fills in what follows from the others (a frozen foreground
    trains on synthetic batches only; the centre loss picks its weight)."""
    settings = Settings(out=out, resume=resume)
    if resumed_args:
        for name, value in resumed_args.items():
            if name in SECTION_OF and name not in NOT_RESUMED:
                settings.set(name, value)
    explicit = dict(config) | dict(overrides)
    for name, value in explicit.items():
        settings.set(name, value)
    inst = settings.instances
    unknown = set(settings.validation.val_sets.split(",")) - set(VAL_SETS)
    if unknown:
        raise SettingsError(f"val_sets: {', '.join(sorted(unknown))} unknown (sets: {', '.join(VAL_SETS)})")
    if resume and "init_heads" in explicit:
        raise SettingsError("init_heads starts the instance heads of a new run, not a resumed one "
                            "(which continues the run's own heads)")
    if not resume and inst.init_heads and not (inst.instance_heads and settings.start.init):
        raise SettingsError("init_heads starts the instance heads of a new run: set instance_heads and init too")
    if settings.optimiser.ema_ramp_heads and not inst.instance_heads:
        raise SettingsError("ema_ramp_heads ramps the instance heads' average: set instance_heads too")
    if settings.loss.teacher and inst.freeze_foreground:
        raise SettingsError("teacher holds the foreground in joint training; freeze_foreground keeps it fixed already")
    if inst.freeze_foreground:
        if not (inst.instance_heads and (settings.start.init or resume)):
            raise SettingsError("freeze_foreground trains instance heads on a trained network: set instance_heads and init")
        settings.synth.synth_share = 1.0  # every sample synthetic: only the heads learn
    if inst.affinity_only and not (inst.affinity_head and inst.init_heads and inst.freeze_foreground):
        raise SettingsError("affinity_only trains a new affinity branch beside loaded heads: set affinity_head, "
                            "init_heads and freeze_foreground")
    if inst.centre_weight is None:  # a resumed run recorded its own
        inst.centre_weight = 1.0 if inst.centre_loss == "focal" else 200.0
    return settings


def toml_value(value) -> str:
    """`value` as a config file writes it (`none` for unset, which only `--set` takes)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    return repr(value)


def describe() -> str:
    """Every setting, by table, with its default and description (--list-settings)."""
    lines = []
    for section, cls in SECTIONS.items():
        lines.append(f"[{section}]  {cls.__doc__}")
        for spec in dataclasses.fields(cls):
            choices = spec.metadata["choices"]
            lines.append(f"  {spec.name} = {toml_value(spec.default)}"
                         f"{' (' + ' | '.join(choices) + ')' if choices else ''}: {spec.metadata['doc']}")
    return "\n".join(lines)
