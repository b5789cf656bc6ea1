"""Evaluates subject masks on the fixed 500-pair DUTS-TE validation set and/or 500 ECSSD pairs.

Metrics (standard definitions from `pysodmetrics`): MAE, max F-measure (beta^2 = 0.3, the max over
256 thresholds of the mean-over-images F curve) and S-measure (alpha = 0.5). Predictions are
compared at the ground truth's resolution as 8-bit maps, as SOD benchmarks do.

What it can evaluate (pick one; each result line says which it was):
  --lift BIN          the shipped pipeline: runs `BIN IN.png --mask OUT.png --force --quiet` per
                      photo (override with --lift-args, e.g. add `--quality accurate`) and scores
                      the grey masks it writes
  --masks DIR         masks already written by anything, as DIR/KEY.png
  --checkpoint PT     the PyTorch model (a Tools/checkpoints/*.pt file; `--which ema|model`),
                      run here in PyTorch with the runtime's preprocessing (stretch to --size,
                      bilinear back; --mirror averages the mirror image's map in) -- this is NOT
                      the shipped pipeline; `cut_mae` is the MAE of its map cut at 0.5
  --weights FILE      an exported .safetensors (e.g. Weights/subject.safetensors) in PyTorch, as
                      --checkpoint (same --size/--mirror; not the shipped pipeline either)
  --u2netp ONNX       rembg's u2netp.onnx in onnxruntime with rembg's own pre/post-processing
                      (Lanczos to 320², ImageNet normalisation, min-max scaled map, Lanczos back)
  --baseline          the centred-Gaussian-prior floor (and the all-background floor)

Which sets: --sets duts (default; DUTS-TE val500), ecssd (ECSSD val500), or duts,ecssd. With more
than one set, --masks/--against/--keep-masks folders hold one subfolder per set (DIR/duts/KEY.png,
DIR/ecssd/KEY.png); a folder without that subfolder is read as it is.

Telling a real gain from noise (candidates are picked on this same set):
  --halves            also score pairs 1-250 and 251-500 apart; a real gain shows in both
  --keep-masks DIR    --lift: keep the masks it wrote, as DIR/KEY.png (for --masks/--against)
  --against X         another run: masks (DIR/KEY.png), or a .pt checkpoint or .safetensors file
                      run here in PyTorch with the same --size/--mirror; the MAE, max-F and S
                      differences from it, with paired standard errors (MAE, S: per image; max F:
                      bootstrap over images), on every set; also cut_mae_diff, the MAE of both
                      maps cut at 0.5 (what the pipeline's threshold ships)

  .venv/bin/python -m liftpy.evaluation.eval_subject --baseline --checkpoint Tools/checkpoints/run/best.pt
  .venv/bin/python -m liftpy.evaluation.eval_subject --sets duts,ecssd --mirror --checkpoint RUN/last.pt \
      --against Weights/subject.safetensors --halves
"""
from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np
import torch

from py_sod_metrics.utils import prepare_data

from liftpy.duts_data import VAL_SETS, load_split
from liftpy.model_files import load_model_file
from liftpy.scoring import cut_mae, predict_torch, py_sod_metrics, sod_metrics, to_uint8


def gaussian_prior(h, w, sigma_frac=0.25):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = np.exp(-(((yy - (h - 1) / 2) / (sigma_frac * h)) ** 2 +
                 ((xx - (w - 1) / 2) / (sigma_frac * w)) ** 2) / 2)
    return g


def read_masks(folder, split, gts):
    """The masks DIR/KEY.png written for `split`, as uint8 maps at the ground truths' sizes."""
    preds = []
    for k, key in enumerate(split.keys):
        m = cv2.imread(str(Path(folder) / f"{key}.png"), cv2.IMREAD_GRAYSCALE)
        if m is None:
            sys.exit(f"missing mask {folder}/{key}.png")
        preds.append(to_uint8(m.astype(np.float32) / 255.0, *gts[k].shape))
    return preds


def paired_difference(preds, others, gts, resamples=2000) -> dict:
    """How preds differ from others on the same images: the mean per-image MAE and S-measure
    differences (as pysodmetrics defines them) with their standard errors, and the max-F difference
    with a bootstrap standard error (images resampled with replacement, both runs on the same
    resample). Pairing the images removes their own difficulty, which dominates the spread of
    either run's figures."""
    def per_image(maps):
        fm, sm = py_sod_metrics.Fmeasure(beta=0.3), py_sod_metrics.Smeasure()
        maes = []
        for m, g in zip(maps, gts):
            fm.step(pred=m, gt=g)
            sm.step(pred=m, gt=g)
            p, t = prepare_data(m, g)
            maes.append(np.abs(p - t).mean())
        return np.array(maes), np.array(fm.changeable_fms), np.array(sm.sms)  # (n,), (n, 256) F per threshold, (n,)
    mae_a, f_a, s_a = per_image(preds)
    mae_b, f_b, s_b = per_image(others)
    diff = mae_a - mae_b
    s_diff = s_a - s_b
    cut_diff = np.array([np.abs((a >= 128) - g / 255.0).mean() - np.abs((b >= 128) - g / 255.0).mean()
                         for a, b, g in zip(preds, others, gts)])  # as cut_mae: maps cut at 0.5
    rng = np.random.default_rng(0)
    boot = []
    for _ in range(resamples):
        idx = rng.integers(0, len(gts), len(gts))
        boot.append(f_a[idx].mean(0).max() - f_b[idx].mean(0).max())
    return {"mae_diff": float(diff.mean()), "mae_diff_se": float(diff.std(ddof=1) / np.sqrt(len(diff))),
            "maxf_diff": float(f_a.mean(0).max() - f_b.mean(0).max()), "maxf_diff_se": float(np.std(boot, ddof=1)),
            "s_diff": float(s_diff.mean()), "s_diff_se": float(s_diff.std(ddof=1) / np.sqrt(len(s_diff))),
            "cut_mae_diff": float(cut_diff.mean()), "cut_mae_diff_se": float(cut_diff.std(ddof=1) / np.sqrt(len(cut_diff)))}


def predict_u2netp(session, split):
    """rembg's u2netp session (rembg/session_simple.py + session_base.py, version 0.1.3 of the
    lambda-lite wheel): the photo resized to 320² with Lanczos, divided by its maximum, ImageNet
    mean/std; the first output's map min-max scaled, cut to 8 bits, resized back with Lanczos."""
    from PIL import Image
    name = session.get_inputs()[0].name
    mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
    for k in range(len(split)):
        photo, gt = split.pair(k)
        im = np.array(Image.fromarray(photo).resize((320, 320), Image.LANCZOS)).astype(np.float64)
        x = ((im / np.max(im) - mean) / std).transpose(2, 0, 1)[None].astype(np.float32)
        pred = session.run(None, {name: x})[0][0, 0]
        pred = (pred - pred.min()) / (pred.max() - pred.min())
        mask = Image.fromarray((pred * 255).astype(np.uint8), mode="L").resize(
            (gt.shape[1], gt.shape[0]), Image.LANCZOS)
        yield np.asarray(mask, dtype=np.uint8)


def set_folder(folder, set_name, n_sets) -> Path:
    """A masks folder's part for one validation set: DIR/SET when it exists (or, writing, when
    several sets are scored), else DIR itself."""
    folder = Path(folder)
    return folder / set_name if (folder / set_name).is_dir() or n_sets > 1 else folder


def run_lift(binary, args_pattern, split, workdir: Path, keep: Path | None = None):
    out = []
    for k in range(len(split)):
        photo, gt = split.pair(k)
        src = workdir / f"{k}.png"
        dst = keep / f"{split.keys[k]}.png" if keep else workdir / f"{k}_mask.png"
        cv2.imwrite(str(src), photo[..., ::-1])
        cmd = [binary] + [a.format(input=src, output=dst) for a in shlex.split(args_pattern)]
        subprocess.run(cmd, check=True, capture_output=True)
        m = cv2.imread(str(dst), cv2.IMREAD_UNCHANGED)
        if m.ndim == 3:  # RGBA cut-out: alpha is the mask
            m = m[..., 3] if m.shape[2] == 4 else cv2.cvtColor(m, cv2.COLOR_BGR2GRAY)
        out.append(to_uint8(m.astype(np.float32) / 255.0, *gt.shape))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lift")
    ap.add_argument("--lift-args", default="{input} --mask {output} --force --quiet")
    ap.add_argument("--masks")
    ap.add_argument("--checkpoint")
    ap.add_argument("--weights", help="an exported .safetensors file, run in PyTorch")
    ap.add_argument("--u2netp", help="rembg's u2netp.onnx, run in onnxruntime as rembg does")
    ap.add_argument("--sets", default="duts", help="comma-separated: duts (DUTS-TE val500), ecssd (ECSSD val500)")
    ap.add_argument("--which", default="ema", choices=["ema", "model"])
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--mirror", action="store_true",
                    help="--checkpoint: average each map with its mirror image's (as `balanced` does)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--baseline", action="store_true")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--halves", action="store_true", help="also score pairs 1-250 and 251-500 apart")
    ap.add_argument("--keep-masks", help="--lift: keep the masks it wrote in this folder")
    ap.add_argument("--against", help="masks folder, .pt or .safetensors of another run: paired "
                                      "MAE, max-F and S differences with standard errors")
    a = ap.parse_args()
    sets = a.sets.split(",")
    if any(name not in VAL_SETS for name in sets):
        ap.error(f"--sets: choose from {', '.join(VAL_SETS)}")
    if not (a.baseline or a.checkpoint or a.weights or a.u2netp or a.masks or a.lift):
        ap.error("nothing to evaluate: give --lift, --masks, --checkpoint, --weights, --u2netp and/or --baseline")
    torch.set_num_threads(a.threads)
    models = {}  # label -> PyTorch model, loaded once for every set
    model_labels = set()  # the PyTorch models': also scored cut at 0.5
    view = f"at {a.size}x{a.size}{' + mirror' if a.mirror else ''}"
    if a.checkpoint:
        model, label = load_model_file(a.checkpoint, a.which)
        models[f"PyTorch model (not the shipped pipeline): {label} {view}"] = model
    if a.weights:
        model, label = load_model_file(a.weights)
        models[f"PyTorch model (not the shipped pipeline): {label} {view}"] = model
    model_labels.update(models)
    against_model = None
    if a.against and Path(a.against).is_file():
        against_model, against_label = load_model_file(a.against, a.which)
        print(f"against: PyTorch model {against_label} {view}")
    u2 = None
    if a.u2netp:
        import onnxruntime as ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = a.threads
        u2 = ort.InferenceSession(a.u2netp, opts, providers=["CPUExecutionProvider"])
    results = {}
    for set_name in sets:
        split = load_split(VAL_SETS[set_name])
        gts = [split.pair(k)[1] for k in range(len(split))]
        predictions = {}  # label -> uint8 maps, one per pair
        if a.baseline:
            predictions["baseline: centred Gaussian prior (sigma = 1/4 side)"] = [
                to_uint8(gaussian_prior(*g.shape), *g.shape) for g in gts]
            predictions["baseline: all background"] = [np.zeros_like(g) for g in gts]
        for label, model in models.items():
            predictions[label] = list(predict_torch(model, split, a.size, mirror=a.mirror))
        if u2 is not None:
            predictions[f"rembg u2netp in onnxruntime (its own pre/post-processing): {a.u2netp}"] = list(
                predict_u2netp(u2, split))
        if a.masks:
            folder = set_folder(a.masks, set_name, len(sets))
            predictions[f"masks from {folder}"] = read_masks(folder, split, gts)
        if a.lift:
            keep = set_folder(a.keep_masks, set_name, len(sets)) if a.keep_masks else None
            if keep:
                keep.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory() as tmp:
                predictions[f"shipped pipeline: {a.lift} {a.lift_args}"] = run_lift(
                    a.lift, a.lift_args, split, Path(tmp), keep)
        others = None
        if against_model is not None:
            others = list(predict_torch(against_model, split, a.size, mirror=a.mirror))
            r = sod_metrics(others, gts) | {"cut_mae": cut_mae(others, gts)}
            results[f"[{set_name}] against: {against_label} {view}"] = r
        elif a.against:
            others = read_masks(set_folder(a.against, set_name, len(sets)), split, gts)
        half = len(split) // 2
        for label, preds in predictions.items():
            r = sod_metrics(preds, gts)
            if label in model_labels:
                r["cut_mae"] = cut_mae(preds, gts)
            if a.halves:
                for part, sl in (("first_half", slice(0, half)), ("second_half", slice(half, None))):
                    r |= {f"{name}_{part}": v for name, v in sod_metrics(preds[sl], gts[sl]).items()}
            if others is not None:
                r |= paired_difference(preds, others, gts)
            results[f"[{set_name}] {label}"] = r
    for label, r in results.items():
        print(f"{label}: " + ", ".join(f"{k} {v:.4f}" for k, v in r.items()))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
