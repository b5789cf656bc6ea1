"""Scoring subject masks against ground truths: the salient-object metrics (`pysodmetrics`' standard
definitions), the MAE of a map cut at 0.5, and a PyTorch SubjectNet's masks on a validation split
with the runtime's preprocessing. The trainer validates with these, the exporter scores what it
wrote, and `liftpy.evaluation.eval_subject` reports them.

Maps are compared at the ground truth's resolution as 8-bit maps, as SOD benchmarks do.
"""
from __future__ import annotations

import warnings

import cv2
import numpy as np
import py_sod_metrics
import torch

from liftpy.duts_data import stretch

# pysodmetrics' Fmeasure warns on every construction that a successor exists; its results are the
# standard definition the project's figures use
warnings.filterwarnings("ignore", message="This class will be removed")


def sod_metrics(preds, gts, smeasure=True) -> dict:
    """MAE, max F-measure (beta^2 = 0.3, the max over 256 thresholds of the mean-over-images F
    curve) and S-measure (alpha = 0.5). preds, gts: sequences of uint8 (H, W) maps of equal shapes
    pairwise."""
    fm, mae = py_sod_metrics.Fmeasure(beta=0.3), py_sod_metrics.MAE()
    sm = py_sod_metrics.Smeasure() if smeasure else None
    for p, g in zip(preds, gts):
        fm.step(pred=p, gt=g)
        mae.step(pred=p, gt=g)
        if sm is not None:
            sm.step(pred=p, gt=g)
    out = {"mae": float(mae.get_results()["mae"]),
           "maxf": float(fm.get_results()["fm"]["curve"].max())}
    if sm is not None:
        out["smeasure"] = float(sm.get_results()["sm"])
    return out


def to_uint8(prob: np.ndarray, h: int, w: int) -> np.ndarray:
    """A [0, 1] probability map resized (bilinear) to h x w, as the 8-bit mask a PNG would hold."""
    if prob.shape != (h, w):
        prob = cv2.resize(prob.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(np.rint(prob * 255.0), 0, 255).astype(np.uint8)


def predict_torch(model, split, size=256, batch=25, mirror=False):
    """Runs a PyTorch SubjectNet (eval mode) on every pair of `split`, each photo stretched to
    size x size; yields uint8 masks at the ground truths' sizes. With `mirror`, each map is the
    mean of the photo's and its mirror image's (as `balanced` does)."""
    model.eval()
    n = len(split)
    with torch.no_grad():
        for i in range(0, n, batch):
            idx = range(i, min(n, i + batch))
            x = np.stack([stretch(split.pair(k)[0], size) for k in idx])
            xt = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
            prob = torch.sigmoid(model(xt))[:, 0]
            if mirror:
                flipped = xt.flip(3).contiguous(memory_format=torch.channels_last)
                prob = (prob + torch.sigmoid(model(flipped))[:, 0].flip(2)) / 2
            prob = prob.numpy()
            for j, k in enumerate(idx):
                h, w = split.pair(k)[1].shape
                yield to_uint8(prob[j], h, w)


def cut_mae(preds, gts, threshold=128) -> float:
    """MAE of the maps cut at `threshold` (0 or 255), the mean over images: close to what the
    pipeline ships, which thresholds the map at 0.5 before feathering its edges."""
    return float(np.mean([np.abs((p >= threshold).astype(np.float32) - g / 255.0).mean()
                          for p, g in zip(preds, gts)]))
