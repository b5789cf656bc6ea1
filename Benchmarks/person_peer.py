#!/usr/bin/env python3
"""Peer for `lift-bench person`: the TFLite interpreter (ai-edge-litert, default XNNPACK delegate)
running MediaPipe Selfie Segmentation on the same committed input, 1 and 2 threads.

Input: `Tests/Fixtures/person/astronaut.rgb` (general model) and `astronaut-wide.rgb` (landscape),
as `float32(x) * float32(1/255)`; the `.tflite` files come from `Tools/conversion/convert_person.py`'s cache.
Prints one line per (model, threads): median and best milliseconds per image over `--runs` runs
after `--warmup` runs.

Usage: .venv/bin/python Benchmarks/person_peer.py [--runs 200] [--warmup 20]
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import time

import numpy as np
from ai_edge_litert.interpreter import Interpreter

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODELS = [("person", "selfie_segmentation.tflite", "astronaut", 256, 256),
          ("person-landscape", "selfie_segmentation_landscape.tflite", "astronaut-wide", 144, 256)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    for model, tflite, fixture, height, width in MODELS:
        pixels = np.fromfile(ROOT / "Tests/Fixtures/person" / f"{fixture}.rgb", dtype=np.uint8)
        x = (pixels.astype(np.float32) * np.float32(1.0 / 255.0)).reshape(1, height, width, 3)
        for threads in (1, 2):
            interpreter = Interpreter(model_path=str(ROOT / "Tools/.cache" / tflite), num_threads=threads)
            interpreter.allocate_tensors()
            index = interpreter.get_input_details()[0]["index"]
            output = interpreter.get_output_details()[0]["index"]
            times = []
            for i in range(args.warmup + args.runs):
                start = time.perf_counter()
                interpreter.set_tensor(index, x)
                interpreter.invoke()
                interpreter.get_tensor(output)
                if i >= args.warmup:
                    times.append((time.perf_counter() - start) * 1000)
            print(f"tflite-xnnpack {model:17s} threads {threads}: median {statistics.median(times):7.3f} ms"
                  f"  best {min(times):7.3f} ms  ({args.runs} runs)")


if __name__ == "__main__":
    main()
