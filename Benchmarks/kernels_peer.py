#!/usr/bin/env python3
"""Time LiftTensor's benchmark layers in PyTorch (CPU) and onnxruntime, side by side with Lift.

Runs `lift-bench kernels --json` first (same machine, same run), takes its layer shapes, and times
exactly those layers in PyTorch (channels-last, the NHWC layout Lift uses) and onnxruntime (one Conv
or ConvTranspose node plus the layer's activation) at 1 and 2 threads. Timing follows lift-bench:
best of repeated runs, on thread CPU time for 1 thread (preemption by other jobs on this shared
machine is not counted) and wall time for 2 threads.

Usage (from the repository root, after `swift build -c release --product lift-bench`):
    python3 Benchmarks/kernels_peer.py [--lift .build/release/lift-bench]
        [--filter NAME] [--markdown] [--json]
Needs numpy, torch, onnx and onnxruntime: the script re-runs itself under `$LIFT_PEER_PYTHON` if set,
else under the repository's `.venv` (made by `Tools/setup-python.sh` from the pinned
`Tools/requirements.txt`; see `Benchmarks/peer_env.py`).
"""
import argparse
import json
import subprocess
import sys
import time

import peer_env

peer_env.use_peer_python(["numpy", "onnx", "onnxruntime", "torch"])  # before the peers are imported

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper


def best_time(fn, clock, min_runs=3, min_seconds=0.25):
    """Best time in seconds of fn() after one warm-up, over >= min_runs runs and >= min_seconds."""
    fn()
    best, total, runs = float("inf"), 0.0, 0
    while runs < min_runs or total < min_seconds:
        start = clock()
        fn()
        elapsed = clock() - start
        best = min(best, elapsed)
        total += elapsed
        runs += 1
    return best


def torch_activation(name):
    return {
        "none": lambda x: x,
        "relu": F.relu,
        "relu6": F.relu6,
        "hardswish": F.hardswish,
        "sigmoid": torch.sigmoid,
    }[name]


def torch_runner(layer, x_nhwc, weights, bias):
    """A closure running the layer in PyTorch on a channels-last tensor."""
    x = torch.from_numpy(x_nhwc).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
    act = torch_activation(layer["activation"])
    top, left, bottom, right = layer["padding"]
    stride, dilation, groups = layer["stride"], layer["dilation"], layer["groups"]
    if layer["transposed"]:
        w = torch.from_numpy(weights)  # [Cin, Cout, kh, kw]
        return lambda: act(F.conv_transpose2d(x, w, bias, stride=stride))
    w = torch.from_numpy(weights).contiguous(memory_format=torch.channels_last)  # [Cout, Cin/g, kh, kw]
    if top == bottom and left == right:
        return lambda: act(F.conv2d(x, w, bias, stride=stride, padding=(top, left), dilation=dilation, groups=groups))
    return lambda: act(F.conv2d(F.pad(x, (left, right, top, bottom)), w, bias, stride=stride, dilation=dilation, groups=groups))


def onnx_model(layer, weights, bias):
    """A one-layer ONNX model (NCHW) with the layer's activation."""
    cin, cout, k = layer["cin"], layer["cout"], layer["kernel"]
    h, w = layer["h"], layer["w"]
    inits = [helper.make_tensor("W", TensorProto.FLOAT, weights.shape, weights.flatten().tolist()),
             helper.make_tensor("B", TensorProto.FLOAT, [cout], bias.numpy().tolist())]
    top, left, bottom, right = layer["padding"]
    s, d = layer["stride"], layer["dilation"]
    if layer["transposed"]:
        node = helper.make_node("ConvTranspose", ["x", "W", "B"], ["conv"], kernel_shape=[k, k], strides=[s, s])
    else:
        node = helper.make_node("Conv", ["x", "W", "B"], ["conv"], kernel_shape=[k, k], strides=[s, s],
                                dilations=[d, d], pads=[top, left, bottom, right], group=layer["groups"])
    nodes = [node]
    activation = layer["activation"]
    if activation == "none":
        nodes.append(helper.make_node("Identity", ["conv"], ["y"]))
    elif activation == "relu6":
        inits += [helper.make_tensor("lo", TensorProto.FLOAT, [], [0.0]), helper.make_tensor("hi", TensorProto.FLOAT, [], [6.0])]
        nodes.append(helper.make_node("Clip", ["conv", "lo", "hi"], ["y"]))
    else:
        nodes.append(helper.make_node({"relu": "Relu", "hardswish": "HardSwish", "sigmoid": "Sigmoid"}[activation], ["conv"], ["y"]))
    graph = helper.make_graph(nodes, "layer", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, h, w])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def ort_runner(layer, x_nhwc, weights, bias, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(onnx_model(layer, weights, bias), options, providers=["CPUExecutionProvider"])
    x = np.ascontiguousarray(x_nhwc.transpose(0, 3, 1, 2))
    return lambda: session.run(None, {"x": x})


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lift", default=".build/release/lift-bench")
    parser.add_argument("--filter", default=None)
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    args = parser.parse_args()

    command = [args.lift, "kernels", "--json"] + (["--filter", args.filter] if args.filter else [])
    lines = subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()
    rows = [json.loads(line) for line in lines if line.startswith("{")]
    layers = rows
    peak = layers[0]

    # All 1-thread timings first, then all 2-thread ones: switching PyTorch's thread count per layer
    # restarts its thread pool.
    rng = np.random.default_rng(1)
    prepared, results = [], []
    for layer in layers:
        cin, cout, k, groups = layer["cin"], layer["cout"], layer["kernel"], layer["groups"]
        x = rng.uniform(-1, 1, (1, layer["h"], layer["w"], cin)).astype(np.float32)
        shape = (cin, cout, k, k) if layer["transposed"] else (cout, cin // groups, k, k)
        weights = rng.uniform(-0.1, 0.1, shape).astype(np.float32)
        bias = torch.from_numpy(rng.uniform(-0.1, 0.1, cout).astype(np.float32))
        prepared.append((layer, x, weights, bias))
        results.append({"name": layer["name"], "flops": layer["flops"], "lift_gflops_1t": layer["gflops_1t"],
                        "lift_peak_pct": 100 * layer["gflops_1t"] / layer["peak_gflops_1t"],
                        "reference_gflops_1t": layer["reference_gflops_1t"],
                        "lift_ms_1t": layer["ms_1t"], "lift_ms_2t": layer["ms_2t"]})
    for threads in (1, 2):
        clock = time.thread_time if threads == 1 else time.perf_counter
        torch.set_num_threads(threads)
        for (layer, x, weights, bias), row in zip(prepared, results):
            with torch.inference_mode():
                row[f"torch_ms_{threads}t"] = 1e3 * best_time(torch_runner(layer, x, weights, bias), clock)
            row[f"ort_ms_{threads}t"] = 1e3 * best_time(ort_runner(layer, x, weights, bias, threads), clock)
    if args.json:
        for row in results:
            print(json.dumps(row))
    if args.json:
        return
    print(f"FP32 FMA peak (lift-bench, same run): {peak['peak_gflops_1t']} GFLOP/s on 1 thread; "
          f"torch {torch.__version__}, onnxruntime {ort.__version__}")
    header = ["layer", "Lift GF/s 1t", "% peak", "ref GF/s", "Lift ms 1t", "torch 1t", "ort 1t", "Lift/ort 1t",
              "Lift ms 2t", "torch 2t", "ort 2t", "Lift/ort 2t", "Lift 2t/1t"]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print("".join(h.rjust(13 if i else 18) for i, h in enumerate(header)))
    for r in results:
        cells = [r["name"], f"{r['lift_gflops_1t']:.1f}", f"{r['lift_peak_pct']:.0f}%", f"{r['reference_gflops_1t']:.2f}",
                 f"{r['lift_ms_1t']:.3f}", f"{r['torch_ms_1t']:.3f}", f"{r['ort_ms_1t']:.3f}",
                 f"{r['lift_ms_1t'] / r['ort_ms_1t']:.2f}", f"{r['lift_ms_2t']:.3f}", f"{r['torch_ms_2t']:.3f}",
                 f"{r['ort_ms_2t']:.3f}", f"{r['lift_ms_2t'] / r['ort_ms_2t']:.2f}", f"{r['lift_ms_1t'] / r['lift_ms_2t']:.2f}"]
        if args.markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print("".join(c.rjust(13 if i else 18) for i, c in enumerate(cells)))
    total = {key: sum(r[key] for r in results) for key in results[0] if key.endswith("ms_1t") or key.endswith("ms_2t")}
    print(f"sum over layers: Lift {total['lift_ms_1t']:.2f} / torch {total['torch_ms_1t']:.2f} / ort {total['ort_ms_1t']:.2f} ms (1 thread); "
          f"Lift {total['lift_ms_2t']:.2f} / torch {total['torch_ms_2t']:.2f} / ort {total['ort_ms_2t']:.2f} ms (2 threads)")


if __name__ == "__main__":
    sys.exit(main())
