"""What a training run reads: the training pairs (DUTS-TR, with `train_extra` the DUTS-TE extra
pairs, with `distill` blended with the teacher maps), the validation sets, and each step's batch:
augmented DUTS views (`duts_data.TrainBatches`) and the synthetic stream's share
(`liftpy.instances.synth`), as NCHW float tensors whose memory stays NHWC."""
from __future__ import annotations

import time

import torch

from liftpy.duts_data import VAL_SETS, Joined, TrainBatches, Without, blend_targets, load_split
from liftpy.instances.composite import Params
from liftpy.instances.predict import tuning_keys
from liftpy.instances.sources import SourceBank
from liftpy.instances.synth import SynthInstances, loader
from liftpy.training.settings import Settings, SettingsError
from liftpy.training.teacher_maps import load_teacher


def training_data(s: Settings):
    """(the pairs the run trains on, DUTS-TR alone): with `distill` each split's masks blended with
    the teacher's maps."""
    def split(name):
        pairs = load_split(name)
        if s.data.distill > 0:
            pairs = pairs.with_masks(blend_targets(pairs.flat_mask, load_teacher(name, pairs), s.data.distill))
        return pairs

    duts_tr = split("train")
    return (Joined(duts_tr, split("extra")) if s.data.train_extra else duts_tr), duts_tr


def validation_sets(s: Settings) -> dict:
    """{set name: (split, ground truths)} of `val_sets`; none with a frozen foreground, which cannot change."""
    sets = {}
    for name in ([] if s.instances.freeze_foreground else s.validation.val_sets.split(",")):
        split = load_split(VAL_SETS[name])
        sets[name] = (split, [split.pair(k)[1] for k in range(len(split))])
    return sets


def view_settings(s: Settings) -> dict:
    """The training views' settings for TrainBatches."""
    d = s.data
    return dict(zoom_out_p=d.zoom_out_p, zoom_canvas=d.zoom_canvas, scale=tuple(d.crop_area),
                zoom_in_p=d.zoom_in_p, zoom_in=tuple(d.zoom_in_area), paste_p=d.paste_p, paste_scale=tuple(d.paste_scale))


def to_tensors(x, y):
    """NHWC numpy batch -> NCHW tensors whose memory stays NHWC (channels_last)."""
    return torch.from_numpy(x).permute(0, 3, 1, 2), torch.from_numpy(y).permute(0, 3, 1, 2)


def calibration_batches(s: Settings, train):
    """Full batches of training views from another seed, as tensors: what calibrate_from_export measures."""
    views = TrainBatches(train, s.data.batch, s.data.size, seed=s.data.seed + 10**9, **view_settings(s))
    return (to_tensors(x, y) for x, y in views)


def synthetic_share(s: Settings, instance_heads: bool) -> int:
    """How many samples of each batch the synthetic stream makes."""
    n = int(round(s.data.batch * s.synth.synth_share))
    if not 0 <= n < s.data.batch and not (s.instances.freeze_foreground and n == s.data.batch):
        raise SettingsError(f"synth_share {s.synth.synth_share} leaves no DUTS views in a batch of {s.data.batch}")
    if instance_heads and n == 0:
        raise SettingsError("instance_heads trains on synthetic samples: set synth_share (e.g. 0.5)")
    return n


def source_bank(s: Settings, duts_tr, log) -> SourceBank:
    """Where the synthetic stream's objects, backgrounds and photos come from: DUTS-TR (also with
    `train_extra`: the instance tuning set is made of the extra pairs), with `synth_extra` also the
    extra pairs that the tuning sets do not use."""
    t = time.time()
    if s.synth.synth_extra:
        bank = SourceBank(split=Joined(duts_tr, Without(load_split("extra"), tuning_keys())))
    else:
        bank = SourceBank(split=duts_tr)
    log(f"source bank: {bank.summary()} (built in {time.time() - t:.0f} s)")
    return bank


def synthetic_stream(s: Settings, bank: SourceBank, duts_tr, n: int, start_step: int, log):
    """The synthetic samples of steps from `start_step` on, `n` a step: sample index = step * n + j,
    so that a resumed run continues the stream."""
    synth = s.synth
    fg_weights = None
    if synth.synth_shapes == "extra":
        if not synth.synth_extra:
            raise SettingsError("synth_shapes extra takes its histogram from the extra pairs: set synth_extra")
        fg_weights = bank.shape_weights(bank.fg[:, 0] >= len(duts_tr))  # the extra pairs' foregrounds
    stream = SynthInstances(seed=s.data.seed, size=s.data.size, bank=bank, photo_p=synth.synth_photo_p,
                            relation_p=synth.synth_relations, photo_paste_p=synth.synth_photo_paste_p,
                            params=Params(variety=synth.synth_variety), fg_weights=fg_weights)
    log(f"synthetic stream: {n} of {s.data.batch} per batch from index {start_step * n}, untouched photos "
        f"{synth.synth_photo_p:.0%} of them ({synth.synth_photo_paste_p:.0%} of those with objects pasted against "
        f"theirs), relations {stream.relation_weights()}, variety {synth.synth_variety}, shapes {synth.synth_shapes}, "
        f"{synth.synth_workers} worker(s)")
    return iter(loader(stream, batch_size=n, workers=synth.synth_workers, start=start_step * n))


def held_out_samples(s: Settings, duts_tr, bank: SourceBank) -> list:
    """64 synthetic samples of another seed for validating the heads of a frozen foreground, from
    DUTS-TR alone so that the figures of runs with and without synth_extra compare."""
    held = SynthInstances(seed=99, size=s.data.size, bank=SourceBank(split=duts_tr) if s.synth.synth_extra else bank)
    return [held[i] for i in range(64)]


class StepBatches:
    """Each step's batch: (images, foreground targets or None, the synthetic part's sample dict or
    None, seconds spent waiting for data). A frozen foreground trains on the synthetic stream
    alone; otherwise DUTS views come first and the synthetic samples (no second colour jitter:
    synth degrades its own) after them."""

    def __init__(self, views, synthetic, frozen: bool):
        self.views, self.synthetic, self.frozen = views, synthetic, frozen

    def next(self):
        t0 = time.time()
        if self.frozen:
            b = next(self.synthetic)
            return _images(b), None, b, time.time() - t0
        x, y = next(self.views)
        b = next(self.synthetic) if self.synthetic is not None else None
        waited = time.time() - t0
        xt, yt = to_tensors(x, y)
        if b is not None:
            xt = torch.cat([xt, _images(b)])
            yt = torch.cat([yt, b["fg"][:, None]])
        return xt, yt, b, waited


def _images(b):
    """The synthetic batch's uint8 NHWC images as NCHW floats in 0...1."""
    return b["image"].float().div(255).permute(0, 3, 1, 2)
