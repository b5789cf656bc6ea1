"""The peer pipeline for `lift-bench pipeline`: rembg's default path, stage by stage.

rembg (`rembg i photo.jpg out.png`, model u2netp) does: Pillow decode -> RGB resize to 320x320
(Lanczos) -> normalise with ImageNet mean/std -> U^2-Net-small in onnxruntime -> min-max normalise
the map -> Pillow resize of the mask back to the photo (Lanczos) -> `putalpha` cut-out -> Pillow PNG
encode. This script times the same stages on the same files, at 1 and 2 threads, with random
(seeded) weights, which cost the same as trained ones.

    .venv/bin/python -m liftpy.fixtures.u2net_small --size 320 --out Benchmarks/.work/u2net_small
    .venv/bin/python Benchmarks/pipeline_peer.py --make-inputs SOURCE.jpg      # 12 MP JPEG, 1 MP PNG
    .venv/bin/python Benchmarks/pipeline_peer.py Benchmarks/.work/photo-12mp.jpg Benchmarks/.work/photo-1mp.png

Prints one JSON object per file and thread count: per-stage milliseconds (median of --repeat runs)
and the process's peak RSS in MiB.
"""
from __future__ import annotations

import argparse
import io
import json
import resource
import statistics
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from PIL import Image

WORK = Path(__file__).resolve().parent / ".work"
MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)


def make_inputs(source: Path) -> None:
    """A 12 MP JPEG (4000x3000, quality 90) and a 1 MP PNG (1152x864) from one photo."""
    WORK.mkdir(parents=True, exist_ok=True)
    photo = Image.open(source).convert("RGB")
    photo.resize((4000, 3000), Image.LANCZOS).save(WORK / "photo-12mp.jpg", quality=90)
    photo.resize((1152, 864), Image.LANCZOS).save(WORK / "photo-1mp.png")


def run_once(path: Path, session: ort.InferenceSession, size: int = 320, mean: np.ndarray = MEAN,
             std: np.ndarray = STD) -> dict[str, float]:
    """One timed pass: milliseconds per stage and `total`, for a model taking `size`x`size` input
    normalised as `(x / 255 - mean) / std`."""
    stages: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        stages[name] = (now - clock) * 1000
        clock = now

    photo = Image.open(path)
    photo.load()
    photo = photo.convert("RGB")
    lap("decode")
    small = np.asarray(photo.resize((size, size), Image.LANCZOS), np.float32) / 255
    tensor = ((small - mean) / std).transpose(2, 0, 1)[None].astype(np.float32)
    lap("preprocess")
    (prob,) = session.run(None, {session.get_inputs()[0].name: tensor})[:1]
    lap("inference")
    prob = prob.reshape(size, size)
    prob = (prob - prob.min()) / max(float(prob.max() - prob.min()), 1e-8)
    mask = Image.fromarray((prob * 255).astype(np.uint8), "L").resize(photo.size, Image.LANCZOS)
    lap("mask")
    cutout = photo.copy()
    cutout.putalpha(mask)
    lap("composite")
    buffer = io.BytesIO()
    cutout.save(buffer, "PNG")
    lap("encode")
    stages["total"] = sum(stages.values())
    return stages


def time_files(model: Path, files: list[Path], threads: list[int], repeat: int, label: str,
               **preprocessing) -> None:
    """Prints, per thread count and file, a JSON object: the median milliseconds of each stage over
    `repeat` runs after a warm-up (`ms`), every run's total (`totals_ms`), the peak RSS in MiB.
    `preprocessing` goes to `run_once` (size, mean, std)."""
    for count in threads:
        options = ort.SessionOptions()
        options.intra_op_num_threads = count
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        for path in files:
            run_once(path, session, **preprocessing)  # warm-up
            runs = [run_once(path, session, **preprocessing) for _ in range(repeat)]
            median = {stage: round(statistics.median(run[stage] for run in runs), 2) for stage in runs[0]}
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(json.dumps({"pipeline": label, "file": path.name, "threads": count, "ms": median,
                              "totals_ms": [round(run["total"], 2) for run in runs], "peak_rss_mib": round(peak, 1)}),
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--model", type=Path, default=WORK / "u2net_small.onnx")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--make-inputs", type=Path, metavar="SOURCE")
    args = parser.parse_args()
    if args.make_inputs:
        make_inputs(args.make_inputs)
    if args.files:
        time_files(args.model, args.files, args.threads, args.repeat, "rembg-shaped (Pillow + onnxruntime U2-Net-small 320)")


if __name__ == "__main__":
    main()
