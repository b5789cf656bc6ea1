"""Writes the grouping parity fixtures `Tests/Fixtures/instances/group/`: small scenes,
their instance cues and what `group.py`'s `group` makes of them, for the Swift port
(`Sources/LiftMask/InstanceGrouping.swift`, `Tests/LiftMaskTests/InstanceGroupingTests.swift`).

    .venv/bin/python -m liftpy.instances.make_group_fixtures [--out Tests/Fixtures/instances/group]

Scenes are drawn from seeds (rectangles and ellipses that touch, overlap, or are cut in two by a
background gap), never from a photo. Their cues are `targets.instance_targets`' perfect maps at /4
(as `group.py`'s self-check makes them), then, except in the first case, spoiled with seeded noise:
smoothed offset errors of a few pixels, centre and boundary noise, a blurred and noisy foreground,
so that slivers, boundary checks and joins all happen. Per case NAME:
- NAME.json: photo size [H, W], model size [h, w], cell grid [hc, wc], the parameters, whether a
  boundary map is given, and the instance count;
- NAME.mask.png: group.py's step 1 mask (the foreground resized to the photo, >= 0.5), 0/255;
- NAME.centre.f32, NAME.offset.f32 ((dy, dx) interleaved per cell), NAME.boundary.f32: raw
  little-endian float32, row-major cells;
- NAME.affinity.f32 (the `affinity-*` cases, whose json gives `affinity_split`: [bias, min piece]):
  affinity_split.py's maps, (C, hc, wc) float32, one map after another;
- NAME.labels.png: `group`'s label map (8-bit: 0 background, 1.. largest first), split again by
  `affinity_split.affinity_split` in the `affinity-*` cases.
OpenCV's Intel IPP path is turned off (`cv2.ipp.setUseIPP(False)`): its bilinear resize differs from
OpenCV's own in the last digits, and the Swift port follows OpenCV's own arithmetic.
"""
from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict
from pathlib import Path

import cv2
import numpy as np

from liftpy.instances.affinity_split import OFFSETS, affinity_split
from liftpy.instances.group import GroupParams, group, split_candidates, split_score
from liftpy.instances.targets import instance_targets

TOOLS = Path(__file__).resolve().parents[1]


def self_check_scene():
    ids = np.zeros((256, 256), np.uint8)
    ids[40:120, 30:110], ids[40:120, 110:190] = 1, 2
    ids[160:200, 20:80], ids[160:200, 100:160] = 3, 3
    ids[170:230, 200:250] = 4
    return ids, 4


def random_scene(rng):
    """2-5 shapes on a 256 x 256 model frame; later ones occlude earlier ones; sometimes a background
    band cuts one shape in two."""
    ids = np.zeros((256, 256), np.uint8)
    count = int(rng.integers(2, 6))
    for i in range(1, count + 1):
        cy, cx = rng.integers(40, 216, size=2)
        ry, rx = rng.integers(18, 50, size=2)
        if rng.random() < 0.5:
            ids[max(0, cy - ry):cy + ry, max(0, cx - rx):cx + rx] = i
        else:
            cv2.ellipse(ids, (int(cx), int(cy)), (int(rx), int(ry)), float(rng.uniform(0, 180)), 0, 360, i, -1)
    if rng.random() < 0.6:
        x = int(rng.integers(60, 196))
        ids[:, x:x + int(rng.integers(4, 10))] = 0
    present = [i for i in range(1, count + 1) if (ids == i).any()]
    lut = np.zeros(256, np.uint8)
    lut[present] = np.arange(1, len(present) + 1)
    return lut[ids], len(present)


def cues(ids, count, rng, noisy):
    centre, offset, boundary = instance_targets(ids, count, 4.0, 2)
    c4, o4, b4 = centre[1::4, 1::4].copy(), offset[:, 1::4, 1::4] - 0.5, boundary[1::4, 1::4].astype(np.float32)
    fg = (ids > 0).astype(np.float32)
    if noisy:
        hc, wc = c4.shape
        c4 = np.clip(c4 + rng.normal(0, 0.04, c4.shape).astype(np.float32), 0, 1)
        err = rng.normal(0, 1, (2, hc, wc)).astype(np.float32)
        err = np.stack([cv2.GaussianBlur(e, (0, 0), 2.0) for e in err]) * 12
        o4 = (o4 + err).astype(np.float32)
        b4 = np.clip(cv2.GaussianBlur(b4, (0, 0), 1.0) * 1.5 + rng.normal(0, 0.08, b4.shape), 0, 1).astype(np.float32)
        fg = np.clip(cv2.GaussianBlur(fg, (0, 0), 2.0) + rng.normal(0, 0.15, fg.shape), 0, 1).astype(np.float32)
    return fg, c4.astype(np.float32), o4.astype(np.float32), b4


def spurious_peak(c4, o4):
    """A peak in the lone blob's right half where the offsets are lost (zero: each pixel votes for
    itself), as group.py's self-check has it: the support test must drop it."""
    c4, o4 = c4.copy(), o4.copy()
    c4[50, 59] = 1.0
    o4[:, 42:58, 56:63] = 0.0
    return c4, o4


def weak_spurious_peak(c4, o4):
    """`spurious_peak` at score 0.3 with the touching pair's seam intact: the split check must
    join the blob's two pieces (a weak peak, no seam) and keep the pair apart."""
    c4, o4 = spurious_peak(c4, o4)
    c4[50, 59] = 0.3
    return c4, o4


def centreless(c4, o4):
    """No centre peak anywhere: the grouping keeps the components and the affinity split alone cuts."""
    return np.zeros_like(c4), o4


def hidden_peak(c4, o4):
    """The strongest centre peak gone (9 x 9 cells around it), as for an overlapped object whose
    centre the heads miss: the grouping cannot cut it off, the affinity split may."""
    c4 = c4.copy()
    i, j = np.unravel_index(int(np.argmax(c4)), c4.shape)
    c4[max(0, i - 4):i + 5, max(0, j - 4):j + 5] = 0
    return c4, o4


def affinity_cues(ids, rng):
    """`affinity_split.OFFSETS`' maps of an id map at /4 (cell (i, j) samples model pixel (4i + 1,
    4j + 1), as `cues` does): 1 where a pair of cells lies on one instance, else 0; blurred and noisy
    so that weak seams, small clusters and pairs of weight 0 all happen. (C, hc, wc) float32."""
    cell = ids[1::4, 1::4].astype(np.int32)
    hc, wc = cell.shape
    maps = np.zeros((len(OFFSETS), hc, wc), np.float32)
    for c, (dy, dx) in enumerate(OFFSETS):
        a, b = cell[:hc - dy, :wc - dx], cell[dy:, dx:]
        maps[c, :hc - dy, :wc - dx] = (a == b) & (a > 0)
    maps = np.stack([cv2.GaussianBlur(m, (0, 0), 0.6) for m in maps]) + rng.normal(0, 0.06, maps.shape)
    return np.clip(maps, 0, 1).astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(TOOLS.parent / "Tests/Fixtures/instances/group"))
    a = ap.parse_args()
    cv2.ipp.setUseIPP(False)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(3939)
    # name, scene, photo (H, W), noisy, boundary given, parameter overrides[, a change to the cues]
    cases = [("selfcheck", self_check_scene(), (320, 300), False, True, {}),
             ("noisy", self_check_scene(), (211, 187), True, True, {}),
             ("noisy-offsets-alone", self_check_scene(), (240, 260), True, False, {"boundary_threshold": None})]
    for k in range(5):
        cases.append((f"scene{k}", random_scene(rng), (int(rng.integers(150, 330)), int(rng.integers(150, 330))), True,
                      k != 3, {"min_piece": [0.005, 0.002, 0.01, 0.005, 0.0][k]}))
    # The support test (noise-free, so the seeded cases above keep their bytes): a spurious peak
    # dropped and the pixels voting again; every peak short of the support (the components).
    cases += [("spurious-peak", self_check_scene(), (243, 229), False, True,
               {"boundary_threshold": None, "min_support": 0.012}, spurious_peak),
              ("support-above-every-peak", self_check_scene(), (256, 256), False, True, {"min_support": 0.5})]
    # The split check (fit_split_check.py's weights for an early run's heads, rounded), on noisy scenes
    # where it keeps some bordering pieces apart and joins others (checked below).
    check = {"boundary_threshold": None, "split_check": (5.0, 1.0, 0.85, 1.3)}
    cases += [("split-check", self_check_scene(), (233, 251), True, True, check, weak_spurious_peak)]
    # The split check weighing the peaks' support (a fifth weight): a confident spurious peak the
    # offsets do not point at is joined back by its low support, where the four weights keep it.
    support = {"boundary_threshold": None, "split_check": (5.0, 1.0, 0.85, 1.3, 1.0)}
    cases += [("split-check-support", self_check_scene(), (229, 241), True, True, support, spurious_peak)]
    # The affinity split after the grouping (affinity_split.py; its own seeds, so the cases above
    # keep their bytes): on the components alone (no centre peaks), and after a grouping that missed
    # the strongest peak, at several biases and minimum pieces. Most of them cut an instance again;
    # those that do not check that nothing changes then.
    arng = np.random.default_rng(4646)
    cases += [("affinity-centreless", self_check_scene(), (247, 263), True, True,
               {"affinity_split": (0.5, 0.03)}, centreless)]
    for k, (bias, piece) in enumerate([(0.3, 0.0), (0.3, 0.02), (0.3, 0.03), (0.7, 0.01)]):
        cases.append((f"affinity-scene{k}", random_scene(arng), (int(arng.integers(150, 330)), int(arng.integers(150, 330))),
                      True, True, {"boundary_threshold": None, "affinity_split": (bias, piece)},
                      centreless if k % 2 == 0 else hidden_peak))
    summary, further = [], 0  # further: the affinity cases whose split cuts some instance again
    for name, (ids, count), (H, W), noisy, with_boundary, overrides, *change in cases:
        fg, c4, o4, b4 = cues(ids, count, arng if "affinity_split" in overrides else rng, noisy)
        if change:
            c4, o4 = change[0](c4, o4)
        split = overrides.get("affinity_split")
        params = GroupParams(**(asdict(GroupParams()) | {k: v for k, v in overrides.items() if k != "affinity_split"}))
        labels = group(fg, c4, o4, b4 if with_boundary else None, (H, W), params)
        if split is not None:
            aff = affinity_cues(ids, arng)
            grouped = labels.max()
            labels = affinity_split(labels, aff, fg.shape, *split)
            further += int(labels.max() > grouped)
            aff.astype("<f4").tofile(out / f"{name}.affinity.f32")
        if params.split_check is not None:  # both outcomes happen, none within rounding of the threshold
            keep = math.log(params.split_probability / (1 - params.split_probability))
            margins = [split_score(params.split_check, f) - keep for _, _, f in split_candidates(fg, c4, o4, b4, (H, W), params)[1]]
            assert min(margins) < 0 < max(margins) and min(abs(m) for m in margins) > 1e-6, (name, margins)
            if len(params.split_check) == 5:  # the support weight decides at least one candidate
                four = [split_score(params.split_check[:4], f) - keep
                        for _, _, f in split_candidates(fg, c4, o4, b4, (H, W), params)[1]]
                assert any((m < 0) != (m4 < 0) for m, m4 in zip(margins, four)), (name, margins, four)
        mask = cv2.resize(fg, (W, H), interpolation=cv2.INTER_LINEAR) >= params.fg_threshold
        assert labels.max() < 256 and ((labels > 0) <= mask).all()
        cv2.imwrite(str(out / f"{name}.mask.png"), mask.astype(np.uint8) * 255)
        cv2.imwrite(str(out / f"{name}.labels.png"), labels.astype(np.uint8))
        c4.astype("<f4").tofile(out / f"{name}.centre.f32")
        np.ascontiguousarray(o4.transpose(1, 2, 0)).astype("<f4").tofile(out / f"{name}.offset.f32")
        if with_boundary:
            b4.astype("<f4").tofile(out / f"{name}.boundary.f32")
        meta = {"photo": [H, W], "model": list(fg.shape), "cells": list(c4.shape), "boundary": with_boundary,
                "params": asdict(params), "instances": int(labels.max())} | ({"affinity_split": split} if split else {})
        (out / f"{name}.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
        summary.append(f"{name}: {H}x{W}, {int(labels.max())} instances (scene {count}), areas {np.bincount(labels.ravel())[1:].tolist()}")
    assert further >= 3, f"only {further} affinity cases split an instance further"
    (out / "README.md").write_text(
        "# Grouping parity fixtures\n\n"
        "Generated by `Tools/instances/make_group_fixtures.py`; do not edit. Seeded scenes (no photo), their\n"
        "instance cues (perfect maps at /4, then noise) and `Tools/instances/group.py`'s label map for them;\n"
        "the Swift port must give the same labels. Formats in the script's docstring.\n\n"
        + "".join(f"- {line}\n" for line in summary))
    print("\n".join(summary))


if __name__ == "__main__":
    main()
