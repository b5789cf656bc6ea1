"""Exports the shipped subject model to ONNX, for onnxruntime as the peer of Lift's executor.

    .venv/bin/python -m liftpy.conversion.export_subject_onnx [--weights Weights/subject.safetensors] \
        [--out Benchmarks/.work/subject.onnx] [--size N]

Builds `SubjectNet` (Tools/liftpy/subject_model.py), loads the weights *as stored* in the safetensors file
(F16 included) with `export_subject.load_exported_weights`, and exports in eval mode the same
inference graph the file holds: `sigmoid(SubjectNet(x))`, the probability map at input
resolution. Input `image`, NCHW float32 RGB in 0...1 at N x N (default: the size in the file's
`lift.input`, 256); output `mask`, [1, 1, N, N]. The ONNX file is a benchmark artefact (written to
the ignored `Benchmarks/.work/`), never committed.

Checks, printed as max |difference|: onnxruntime vs PyTorch on a seeded random input, and
onnxruntime vs the committed parity fixtures of that size (`Tests/Fixtures/subject/`, PyTorch's
outputs, which `swift test` holds Lift to within 1e-4) when the weights are the ones the fixtures
were made from (their sha256 in `fixtures.json`; candidate weights skip this). Fails if any
exceeds 1e-4.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from safetensors import safe_open

from liftpy.conversion.export_subject import Probability
from liftpy.model_files import load_exported

TOOLS = Path(__file__).resolve().parents[1]
REPO = TOOLS.parent

TOLERANCE = 1e-4


def input_size(weights: Path) -> int:
    """The square input side written in the file's `lift.input` document."""
    with safe_open(str(weights), "np") as file:
        spec = json.loads(file.metadata()["lift.input"])
    if spec["height"] != spec["width"]:
        raise ValueError(f"{weights}: lift.input is {spec['height']}x{spec['width']}, expected square")
    return int(spec["height"])


def run_onnx(session: ort.InferenceSession, nchw: np.ndarray) -> np.ndarray:
    return session.run(None, {"image": nchw.astype(np.float32)})[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights", type=Path, default=REPO / "Weights/subject.safetensors")
    ap.add_argument("--out", type=Path, default=REPO / "Benchmarks/.work/subject.onnx")
    ap.add_argument("--size", type=int, help="input height and width (default: lift.input's)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)
    size = args.size or input_size(args.weights)

    net = load_exported(args.weights)
    model = Probability(net.eval()).eval()
    x = torch.rand(1, 3, size, size, generator=torch.Generator().manual_seed(args.seed))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    with torch.no_grad():
        torch.onnx.export(model, (x,), str(tmp), input_names=["image"], output_names=["mask"],
                          opset_version=17, dynamo=False)
        expected = model(x).numpy()
    tmp.replace(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB): variant {net.variant} from {args.weights}, "
          f"input [1, 3, {size}, {size}]")

    session = ort.InferenceSession(str(args.out), providers=["CPUExecutionProvider"])
    worst = float(np.abs(run_onnx(session, x.numpy()) - expected).max())
    print(f"onnxruntime {ort.__version__} vs PyTorch, seeded input (seed {args.seed}): max |d| {worst:.2e}")
    fixtures = REPO / "Tests/Fixtures/subject"
    index = json.loads((fixtures / "fixtures.json").read_text())
    digest = hashlib.sha256(args.weights.read_bytes()).hexdigest()
    if digest != index["weights_sha256"]:
        print(f"fixtures not compared: they hold the outputs of {index['weights']} "
              f"(sha256 {index['weights_sha256'][:12]}…), not of these weights ({digest[:12]}…)")
        index["cases"] = []
    for case in index["cases"]:
        if case["input"][1:3] != [size, size]:
            continue
        nhwc = np.fromfile(fixtures / f"{case['name']}.input.f32", "<f4").reshape(case["input"])
        reference = np.fromfile(fixtures / f"{case['name']}.output.f32", "<f4").reshape(case["output"])
        got = run_onnx(session, nhwc.transpose(0, 3, 1, 2)).transpose(0, 2, 3, 1)
        difference = float(np.abs(got - reference).max())
        print(f"onnxruntime vs fixture {case['name']} (PyTorch, Lift's parity reference): max |d| {difference:.2e}")
        worst = max(worst, difference)
    if worst > TOLERANCE:
        sys.exit(f"export_subject_onnx: max |d| {worst:.2e} exceeds {TOLERANCE:.0e}")


if __name__ == "__main__":
    main()
