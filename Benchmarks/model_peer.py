"""Times a whole model in onnxruntime (the peer of `lift-bench model`) on the same input, same threads.

    python Benchmarks/model_peer.py --onnx M.onnx --input M.input.f32 --size 320 --threads 2 --runs 10 \
        [--output out.f32]

The input is the raw little-endian float32 NHWC file Lift reads; it is transposed to NCHW for the
ONNX model. Prints one JSON line: {"runtime", "threads", "runs", "median_ms", "min_ms", "times_ms",
"thread_cpu_ms"} (wall times, and the calling thread's CPU time per run, which with 1 thread is all
of the work and does not count time the thread spent preempted); with
--output, writes the first output as raw NHWC float32 for a parity check.

Runs under `$LIFT_PEER_PYTHON` if set, else re-runs itself under the repository's `.venv` (made by
`Tools/setup-python.sh` with numpy and onnxruntime at the versions pinned in `Tools/requirements.txt`;
see `Benchmarks/peer_env.py`).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import peer_env

peer_env.use_peer_python(["numpy", "onnxruntime"])  # before the peers are imported

import numpy as np
import onnxruntime as ort


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnx", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--size", type=int, required=True, help="input height and width")
    ap.add_argument("--channels", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--output")
    args = ap.parse_args()

    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(args.onnx, options, providers=["CPUExecutionProvider"])
    nhwc = np.fromfile(args.input, dtype="<f4").reshape(1, args.size, args.size, args.channels)
    feed = {session.get_inputs()[0].name: np.ascontiguousarray(nhwc.transpose(0, 3, 1, 2))}
    for _ in range(args.warmup):
        out = session.run(None, feed)
    times, cpu = [], []
    for _ in range(args.runs):
        start, start_cpu = time.perf_counter(), time.thread_time()
        out = session.run(None, feed)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.thread_time() - start_cpu) * 1000)
    if args.output:
        np.ascontiguousarray(out[0].transpose(0, 2, 3, 1)).astype("<f4").tofile(args.output)
    print(json.dumps({"runtime": f"onnxruntime {ort.__version__}", "threads": args.threads, "runs": args.runs,
                      "median_ms": statistics.median(times), "min_ms": min(times), "times_ms": times,
                      "thread_cpu_ms": cpu}))


if __name__ == "__main__":
    main()
