#!/usr/bin/env python3
"""The halo number: how much of the old background's colour a cut-out keeps along its
outline, the fringe that shows on a white (or black) backdrop.

For each photo, `lift PHOTO -o CUT.png` (plus --lift-args) writes the cut-out (straight alpha: the
estimated foreground colour F and alpha). Against the photo I, at the photo's size, colour 0-1:
- sure foreground: alpha >= 0.98, eroded by r = L/60 px (L the photo's longer side), so the band of
  background a too-wide alpha keeps at full opacity is not counted as foreground; sure background:
  alpha <= 0.02, eroded the same;
- local means F_bar and B_bar of the photo over the sure pixels in a (2R+1)^2 box, R = L/25;
- the band: pixels with alpha > 0.02 within r of the outline (alpha < 0.5 within r);
- per band pixel where the two means differ (|B_bar - F_bar| >= 0.15): the leak t, how far the
  written colour F lies from F_bar towards B_bar along the line between them, clamped to 0-1, and
  its visible part alpha * t (what a white backdrop shows of the old background, as a share).
Per photo: `halo` = mean alpha * t over the measurable band pixels, in %, and `fringe` = the share
of them with alpha * t >= 0.3 (a visibly background-coloured edge pixel), in %. Lower is better.
A subject's own colour that happens to match its background counts as leak too: the number compares
two cut-outs of the same photos, not a photo against a truth.

  .venv/bin/python Benchmarks/halo.py --lift .build/release/lift                      # the shared photos
  .venv/bin/python Benchmarks/halo.py --lift OLD --against NEW --show OUT_DIR         # before / after, crops
"""
from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import peer_env

peer_env.use_peer_python(["numpy", "cv2"])

import cv2  # noqa: E402
import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PHOTOS = REPO.parent / "shared" / "photos"


def cut_out(lift: str, extra: str, photo: Path, out: Path) -> np.ndarray:
    """Runs lift on `photo` and returns its cut-out as float RGBA (H, W, 4), straight alpha."""
    cmd = [lift, str(photo), "-o", str(out), "--force", "--quiet", *shlex.split(extra)]
    subprocess.run(cmd, check=True)
    rgba = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if rgba is None or rgba.ndim != 3 or rgba.shape[2] != 4:
        raise RuntimeError(f"{out}: not an RGBA PNG")
    return rgba[..., [2, 1, 0, 3]].astype(np.float32) / 255


def halo(photo: np.ndarray, cut: np.ndarray) -> tuple[float, float, int]:
    """(halo %, fringe %, measurable band pixels) of one cut-out (see the module doc)."""
    colour, alpha = cut[..., :3], cut[..., 3]
    longer = max(alpha.shape)
    r = max(2, round(longer / 60))
    radius = max(4, round(longer / 25))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    sure_fg = cv2.erode((alpha >= 0.98).astype(np.uint8), disc).astype(np.float32)
    sure_bg = cv2.erode((alpha <= 0.02).astype(np.uint8), disc).astype(np.float32)

    def local_mean(weight):
        box = (2 * radius + 1, 2 * radius + 1)
        support = cv2.blur(weight, box)
        total = cv2.blur(photo * weight[..., None], box)
        return total / np.maximum(support, 1e-6)[..., None], support

    f_bar, f_support = local_mean(sure_fg)
    b_bar, b_support = local_mean(sure_bg)
    near_outline = cv2.dilate((alpha < 0.5).astype(np.uint8), disc).astype(bool)
    d = b_bar - f_bar
    d2 = (d * d).sum(axis=-1)
    band = (alpha > 0.02) & near_outline & (f_support > 0.02) & (b_support > 0.02) & (d2 >= 0.15 ** 2)
    n = int(band.sum())
    if n == 0:
        return float("nan"), float("nan"), 0
    t = np.clip(((colour - f_bar) * d).sum(axis=-1)[band] / d2[band], 0, 1)
    visible = alpha[band] * t
    return 100 * float(visible.mean()), 100 * float((visible >= 0.3).mean()), n


def over_white(cut: np.ndarray) -> np.ndarray:
    a = cut[..., 3:]
    return ((cut[..., :3] * a + (1 - a)) * 255).round().astype(np.uint8)[..., ::-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lift", required=True, help="the lift binary")
    ap.add_argument("--lift-args", default="", help="extra arguments for it (e.g. '--quality accurate')")
    ap.add_argument("--against", help="a second lift binary, scored on the same photos (before / after)")
    ap.add_argument("--against-args", default=None, help="its extra arguments (default: --lift-args)")
    ap.add_argument("--photos", nargs="*", help="photos (default: every photo under ../shared/photos)")
    ap.add_argument("--show", help="write each photo's cut-outs over white side by side into this folder")
    a = ap.parse_args()
    photos = [Path(p) for p in a.photos] if a.photos else sorted(
        p for p in PHOTOS.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    runs = [("lift", a.lift, a.lift_args)]
    if a.against:
        runs.append(("against", a.against, a.lift_args if a.against_args is None else a.against_args))
    if a.show:
        Path(a.show).mkdir(parents=True, exist_ok=True)
    header = " | ".join(f"{name} halo % | {name} fringe %" for name, _, _ in runs)
    print(f"| photo | band px | {header} |")
    print("|---|---|" + "---|---|" * len(runs))
    totals = [[] for _ in runs]
    with tempfile.TemporaryDirectory() as tmp:
        for photo_path in photos:
            bgr = cv2.imread(str(photo_path), cv2.IMREAD_COLOR)
            if bgr is None:
                print(f"| {photo_path.name} | OpenCV cannot read it | |")
                continue
            photo = bgr[..., ::-1].astype(np.float32) / 255
            cells, shown, n = [], [], 0
            for j, (name, lift, extra) in enumerate(runs):
                cut = cut_out(lift, extra, photo_path, Path(tmp) / f"{name}.png")
                if cut.shape[:2] != photo.shape[:2]:
                    cells.append("size differs | ")
                    continue
                h, f, n = halo(photo, cut)
                totals[j].append((h, f))
                cells.append(f"{h:.2f} | {f:.2f}")
                shown.append(over_white(cut))
            print(f"| {photo_path.parent.name}/{photo_path.name} | {n} | {' | '.join(cells)} |", flush=True)
            if a.show and shown:
                cv2.imwrite(str(Path(a.show) / f"{photo_path.stem}.png"), np.concatenate(shown, axis=1))
    means = " | ".join(f"{np.nanmean([h for h, _ in t]):.2f} | {np.nanmean([f for _, f in t]):.2f}" for t in totals)
    print(f"| mean over photos | | {means} |")


if __name__ == "__main__":
    sys.exit(main())
