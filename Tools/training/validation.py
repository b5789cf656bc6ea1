"""Validation during training, logged to train.log and recorded in log.jsonl: the foreground on the
validation sets (model and EMA, each map averaged with its mirror image's as `balanced` does: MAE,
max F and the MAE of the map cut at 0.5, within ~0.0005 of the shipped pipeline's MAE), or, with a
frozen foreground, the instance losses on 64 held-out synthetic samples."""
from __future__ import annotations

import time

import torch

from liftpy.scoring import cut_mae, predict_torch, sod_metrics
from liftpy.subject_model import InstanceHeads
from liftpy.training.settings import Settings
from liftpy.training.training_recipe import instance_loss, instance_targets


def foreground_round(networks: dict, vals: dict, s: Settings, files, entry: dict) -> dict:
    """Scores each of `networks` ({"model": ..., "ema": ...}) on every validation set, records
    `entry` with the figures ("val": the first set's, "val_sets": all) and logs them. Returns
    {set name: {network name: figures}}."""
    started = time.time()
    by_set = {}
    for set_name, (split, gts) in vals.items():
        by_set[set_name] = {}
        for name, network in networks.items():
            preds = list(predict_torch(network, split, s.validation.val_size, mirror=True))
            by_set[set_name][name] = sod_metrics(preds, gts, smeasure=False) | {"cut_mae": cut_mae(preds, gts)}
    files.record(entry | {"val": next(iter(by_set.values())), "val_sets": by_set,
                          "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    for set_name, res in by_set.items():
        files.log(f"VAL {set_name} epoch {entry['epoch']} (with mirror): model MAE {res['model']['mae']:.4f} maxF "
                  f"{res['model']['maxf']:.4f} cut {res['model']['cut_mae']:.4f} | EMA MAE "
                  f"{res['ema']['mae']:.4f} maxF {res['ema']['maxf']:.4f} cut {res['ema']['cut_mae']:.4f}")
    files.log(f"VAL took {time.time() - started:.0f} s")
    return by_set


def heads_round(networks: dict, held_out: list, s: Settings, files, entry: dict) -> None:
    """The instance terms of each of `networks` on the held-out samples, recorded as "val_synth"
    with `entry` and logged."""
    started = time.time()
    res = {name: heads_figures(network, held_out, s) for name, network in networks.items()}
    files.record(entry | {"val_synth": res, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    files.log(f"VAL synth (64 held-out, unweighted) epoch {entry['epoch']}: model "
              + " ".join(f"{k} {v:.4f}" for k, v in res["model"].items()) + " | EMA "
              + " ".join(f"{k} {v:.4f}" for k, v in res["ema"].items()) + f" ({time.time() - started:.0f} s)")


@torch.no_grad()
def heads_figures(network, held_out: list, s: Settings) -> dict:
    """Mean unweighted instance terms of `network` (eval mode) on the held-out samples."""
    inst = s.instances
    network.eval()
    sums, n = {}, 0
    for i in range(0, len(held_out), 16):
        part = held_out[i:i + 16]
        xv = torch.stack([torch.from_numpy(p["image"]) for p in part]).float().div(255).permute(0, 3, 1, 2)
        ids = torch.stack([torch.from_numpy(p["ids"]) for p in part])
        boundary = torch.stack([torch.from_numpy(p["boundary"]) for p in part])
        _, maps = network.forward_instances(xv.contiguous(memory_format=torch.channels_last))
        target = instance_targets(ids, boundary, stride=xv.shape[2] // maps["centre"].shape[2],
                                  peaks=inst.centre_loss == "focal", centre=inst.centre_target,
                                  affinity=InstanceHeads.AFFINITY_OFFSETS if inst.affinity_head else None)
        _, terms = instance_loss(maps, target, inst.centre_weight, inst.offset_weight, inst.boundary_weight,
                                 inst.centre_loss, inst.affinity_weight)
        for k, v in terms.items():
            sums[k] = sums.get(k, 0.0) + v * len(part)
        n += len(part)
    return {k: v / n for k, v in sums.items()}
