"""The peer pipeline for `lift-bench subject`: rembg's path with the subject model in onnxruntime.

Stage by stage what `Benchmarks/pipeline_peer.py` times for U^2-Net-small (Pillow decode, Lanczos
resize to the model's input, normalisation, onnxruntime, min-max normalisation, Lanczos resize of
the mask to the photo, `putalpha`, Pillow PNG encode), but with the ONNX export of Lift's shipped
subject model (`Tools/conversion/export_subject_onnx.py`) at the input size and normalisation written in the
weight file's `lift.input` (256x256, RGB in 0...1). `lift-bench subject` runs it in the same run as
Lift on the same files; by hand:

    .venv/bin/python -m liftpy.conversion.export_subject_onnx --out Benchmarks/.work/subject.onnx
    .venv/bin/python Benchmarks/subject_peer.py FILE... [--threads 1 2] [--repeat 3]

Prints one JSON object per thread count and file (see `pipeline_peer.time_files`).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from safetensors import safe_open

BENCHMARKS = Path(__file__).resolve().parent
from pipeline_peer import time_files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--onnx", type=Path, default=BENCHMARKS / ".work/subject.onnx")
    parser.add_argument("--weights", type=Path, default=BENCHMARKS.parent / "Weights/subject.safetensors",
                        help="the file whose lift.input gives input size and normalisation")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with safe_open(str(args.weights), "np") as file:
        spec = json.loads(file.metadata()["lift.input"])
    if spec["color"] != "rgb" or spec["range"] != [0, 1] or spec["height"] != spec["width"]:
        sys.exit(f"subject_peer: unexpected lift.input {spec}")
    time_files(args.onnx, args.files, args.threads, args.repeat,
               f"rembg-shaped (Pillow + onnxruntime, subject model {spec['height']})", size=spec["height"],
               mean=np.array(spec["mean"], np.float32), std=np.array(spec["std"], np.float32))


if __name__ == "__main__":
    main()
