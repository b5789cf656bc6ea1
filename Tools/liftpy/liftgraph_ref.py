#!/usr/bin/env python3
"""A plain numpy reference interpreter of `lift.graph/1` (Sources/LiftModel/GRAPH-FORMAT.md).

Written to be obviously correct, not fast: every op is a direct transcription of its definition,
computed in float64 and returned as float32. Used by the `Tools/` scripts to validate a converted
model against its source runtime, and to debug the Swift executor tensor by tensor.

Usage (library): `graph = LiftGraph.load(path); outputs = graph.run({"image": x}, keep_all=True)`.
Usage (CLI):     `python -m liftpy.liftgraph_ref Weights/person.safetensors INPUT.f32` prints the
                 output's shape and range (INPUT.f32: raw little-endian float32 of the input shape).
"""
from __future__ import annotations

import json
import pathlib
import struct
import sys

import numpy as np

DTYPES = {"F16": np.float16, "F32": np.float32}


def read_safetensors(path: pathlib.Path) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Tensors (as float32) and `__metadata__` of a safetensors file."""
    data = pathlib.Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        start, end = info["data_offsets"]
        raw = data[8 + n + start:8 + n + end]
        tensors[name] = np.frombuffer(raw, dtype=np.dtype(DTYPES[info["dtype"]]).newbyteorder("<")) \
            .reshape(info["shape"]).astype(np.float32)
    return tensors, metadata


def same_padding(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """TensorFlow SAME padding (before, after): the smaller half first."""
    total = max((-(-size // stride) - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def paddings(attrs: dict, h: int, w: int, kh: int, kw: int) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) for a conv/pool padding attribute."""
    padding = attrs.get("padding", "valid")
    sh, sw = attrs.get("stride", [1, 1])
    dh, dw = attrs.get("dilation", [1, 1])
    if padding == "valid":
        return 0, 0, 0, 0
    if padding == "same":
        top, bottom = same_padding(h, kh, sh, dh)
        left, right = same_padding(w, kw, sw, dw)
        return top, left, bottom, right
    return tuple(padding)


def activate(x: np.ndarray, name: str) -> np.ndarray:
    if name == "none":
        return x
    if name == "relu":
        return np.maximum(x, 0)
    if name == "relu6":
        return np.clip(x, 0, 6)
    if name == "sigmoid":
        return 0.5 * (1 + np.tanh(0.5 * x))  # = 1 / (1 + exp(-x)), without overflow
    if name == "hardsigmoid":
        return np.clip(x + 3, 0, 6) / 6
    if name == "hardswish":
        return x * np.clip(x + 3, 0, 6) / 6
    if name == "tanh":
        return np.tanh(x)
    raise ValueError(f"unknown activation {name}")


def conv2d(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, attrs: dict) -> np.ndarray:
    """out[n,oy,ox,co] = sum over ky,kx,ci of xpad[n, oy*s+ky*d, ox*s+kx*d, g*cin_g+ci] * w[co,ky,kx,ci]."""
    n, h, w, cin = x.shape
    cout, kh, kw, cin_g = weight.shape
    groups = attrs.get("groups", 1)
    sh, sw = attrs.get("stride", [1, 1])
    dh, dw = attrs.get("dilation", [1, 1])
    assert cin == cin_g * groups and cout % groups == 0
    top, left, bottom, right = paddings(attrs, h, w, kh, kw)
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    ho = (h + top + bottom - (kh - 1) * dh - 1) // sh + 1
    wo = (w + left + right - (kw - 1) * dw - 1) // sw + 1
    cout_g = cout // groups
    out = np.zeros((n, ho, wo, cout), np.float64)
    for g in range(groups):
        xs = xp[..., g * cin_g:(g + 1) * cin_g]
        ws = weight[g * cout_g:(g + 1) * cout_g]
        for ky in range(kh):
            for kx in range(kw):
                patch = xs[:, ky * dh:ky * dh + (ho - 1) * sh + 1:sh, kx * dw:kx * dw + (wo - 1) * sw + 1:sw, :]
                out[..., g * cout_g:(g + 1) * cout_g] += np.einsum("nhwc,oc->nhwo", patch, ws[:, ky, kx, :])
    if bias is not None:
        out += bias
    return activate(out, attrs.get("activation", "none"))


def conv_transpose2d(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, attrs: dict) -> np.ndarray:
    """full[n, iy*s+ky, ix*s+kx, co] += x[n,iy,ix,ci] * w[co,ky,kx,ci]; then cropped per padding."""
    n, h, w, cin = x.shape
    cout, kh, kw, cin_w = weight.shape
    assert cin == cin_w
    sh, sw = attrs.get("stride", [1, 1])
    fh, fw = (h - 1) * sh + kh, (w - 1) * sw + kw
    full = np.zeros((n, fh, fw, cout), np.float64)
    for ky in range(kh):
        for kx in range(kw):
            full[:, ky:ky + (h - 1) * sh + 1:sh, kx:kx + (w - 1) * sw + 1:sw, :] += \
                np.einsum("nhwc,oc->nhwo", x, weight[:, ky, kx, :])
    padding = attrs.get("padding", "valid")
    if padding == "valid":
        top = left = bottom = right = 0
    elif padding == "same":  # output in*stride; the crop's smaller half on top/left
        top, bottom = (fh - h * sh) // 2, fh - h * sh - (fh - h * sh) // 2
        left, right = (fw - w * sw) // 2, fw - w * sw - (fw - w * sw) // 2
    else:
        top, left, bottom, right = padding
    out = full[:, top:fh - bottom, left:fw - right, :]
    if bias is not None:
        out = out + bias
    return activate(out, attrs.get("activation", "none"))


def resize_bilinear(x: np.ndarray, oh: int, ow: int, coordinates: str) -> np.ndarray:
    """Separable bilinear resize with the format's source-coordinate rules."""
    def axis(out_size: int, in_size: int):
        d = np.arange(out_size, dtype=np.float64)
        if coordinates == "half_pixel":
            src = np.maximum((d + 0.5) * in_size / out_size - 0.5, 0)
        elif coordinates == "align_corners":
            src = d * (in_size - 1) / (out_size - 1) if out_size > 1 else np.zeros_like(d)
        elif coordinates == "asymmetric":
            src = d * in_size / out_size
        else:
            raise ValueError(coordinates)
        i0 = np.minimum(np.floor(src).astype(int), in_size - 1)
        i1 = np.minimum(i0 + 1, in_size - 1)
        return i0, i1, src - i0
    _, h, w, _ = x.shape
    y0, y1, fy = axis(oh, h)
    x0, x1, fx = axis(ow, w)
    rows = x[:, y0] * (1 - fy)[None, :, None, None] + x[:, y1] * fy[None, :, None, None]
    return rows[:, :, x0] * (1 - fx)[None, None, :, None] + rows[:, :, x1] * fx[None, None, :, None]


def resize_nearest(x: np.ndarray, oh: int, ow: int, coordinates: str) -> np.ndarray:
    """Nearest neighbour: floor((dst + 0.5)·in/out) for half_pixel, floor(dst·in/out) for asymmetric,
    round(dst·(in-1)/(out-1)) for align_corners; clamped to the input."""
    def axis(out_size: int, in_size: int) -> np.ndarray:
        d = np.arange(out_size, dtype=np.float64)
        if coordinates == "half_pixel":
            index = np.floor((d + 0.5) * in_size / out_size)
        elif coordinates == "asymmetric":
            index = np.floor(d * in_size / out_size)
        elif coordinates == "align_corners":
            index = np.round(d * (in_size - 1) / (out_size - 1)) if out_size > 1 else np.zeros_like(d)
        else:
            raise ValueError(coordinates)
        return np.clip(index.astype(int), 0, in_size - 1)
    _, h, w, _ = x.shape
    return x[:, axis(oh, h)][:, :, axis(ow, w)]


def pool2d(x: np.ndarray, attrs: dict, kind: str) -> np.ndarray:
    """max/avg pooling: windows over the padded input; padding never wins a max and, unless
    `count_include_pad`, is not counted in an average. `ceil_mode` as PyTorch (a last window must
    start inside the input or its left/top padding)."""
    n, h, w, c = x.shape
    kh, kw = attrs["kernel"]
    sh, sw = attrs.get("stride", [kh, kw])
    top, left, bottom, right = paddings({**attrs, "stride": [sh, sw], "dilation": [1, 1]}, h, w, kh, kw)

    def out_size(size: int, before: int, after: int, k: int, s: int) -> int:
        span = size + before + after - k
        if not attrs.get("ceil_mode", False):
            return span // s + 1
        out = -(-span // s) + 1
        return out - 1 if (out - 1) * s >= size + before else out

    ho, wo = out_size(h, top, bottom, kh, sh), out_size(w, left, right, kw, sw)
    out = np.zeros((n, ho, wo, c), np.float64)
    for oy in range(ho):
        for ox in range(wo):
            y0, x0 = oy * sh - top, ox * sw - left
            ys, xs = slice(max(y0, 0), min(y0 + kh, h)), slice(max(x0, 0), min(x0 + kw, w))
            window = x[:, ys, xs, :]
            if kind == "max":
                out[:, oy, ox] = window.max(axis=(1, 2))
            else:
                if attrs.get("count_include_pad", False):  # window clipped to the padded input
                    count = (min(y0 + kh, h + bottom) - y0) * (min(x0 + kw, w + right) - x0)
                else:
                    count = window.shape[1] * window.shape[2]
                out[:, oy, ox] = window.sum(axis=(1, 2)) / count
    return out


def broadcast_operand(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    assert b.shape == a.shape or (b.shape[1:3] == (1, 1) and b.shape[3] == a.shape[3]), (a.shape, b.shape)
    return b


class LiftGraph:
    """A loaded `lift.graph/1` model: the graph document, its input spec and float32 weights."""

    def __init__(self, graph: dict, weights: dict[str, np.ndarray], input_spec: dict | None = None):
        assert graph["format"] == "lift.graph/1"
        self.graph, self.weights, self.input_spec = graph, weights, input_spec

    @classmethod
    def load(cls, path) -> "LiftGraph":
        tensors, metadata = read_safetensors(path)
        spec = json.loads(metadata["lift.input"]) if "lift.input" in metadata else None
        return cls(json.loads(metadata["lift.graph"]), tensors, spec)

    def run(self, inputs: dict[str, np.ndarray], keep_all: bool = False) -> dict[str, np.ndarray]:
        """Runs every node in order; returns the graph outputs (or every value with keep_all)."""
        values = {k: np.asarray(v, np.float64) for k, v in inputs.items()}
        for spec in self.graph["inputs"]:
            expected = [d for d in spec["shape"]]
            actual = list(values[spec["name"]].shape)
            assert all(e in (-1, a) for e, a in zip(expected, actual)), (spec, actual)
        for node in self.graph["nodes"]:
            op, attrs = node["op"], node.get("attrs", {})
            xs = [values[name] for name in node["inputs"]]
            w = {role: self.weights[name].astype(np.float64) for role, name in node.get("weights", {}).items()}
            if op == "conv2d":
                y = conv2d(xs[0], w["weight"], w.get("bias"), attrs)
            elif op == "conv_transpose2d":
                y = conv_transpose2d(xs[0], w["weight"], w.get("bias"), attrs)
            elif op in ("max_pool2d", "avg_pool2d"):
                y = pool2d(xs[0], attrs, op[:3])
            elif op == "global_avg_pool":
                y = xs[0].mean(axis=(1, 2), keepdims=True)
            elif op in ("resize_bilinear", "resize_nearest"):
                if len(xs) > 1:
                    oh, ow = xs[1].shape[1:3]
                elif "size" in attrs:
                    oh, ow = attrs["size"]
                else:
                    oh, ow = (int(np.floor(xs[0].shape[1] * attrs["scale"][0])),
                              int(np.floor(xs[0].shape[2] * attrs["scale"][1])))
                resize = resize_bilinear if op == "resize_bilinear" else resize_nearest
                y = resize(xs[0], oh, ow, attrs.get("coordinates", "half_pixel"))
            elif op in ("add", "mul", "sub"):
                b = broadcast_operand(xs[0], xs[1])
                y = {"add": np.add, "mul": np.multiply, "sub": np.subtract}[op](xs[0], b)
                y = activate(y, attrs.get("activation", "none"))
            elif op == "concat":
                assert attrs.get("axis", 3) == 3
                y = np.concatenate(xs, axis=3)
            elif op == "slice":
                assert attrs.get("axis", 3) == 3 and 0 <= attrs.get("start", 0) < attrs["end"] <= xs[0].shape[3]
                y = xs[0][..., attrs.get("start", 0):attrs["end"]]
            elif op in ("relu", "relu6", "sigmoid", "hardsigmoid", "hardswish", "tanh"):
                y = activate(xs[0], op)
            elif op == "pad":
                top, left, bottom, right = attrs["pads"]
                y = np.pad(xs[0], ((0, 0), (top, bottom), (left, right), (0, 0)),
                           constant_values=attrs.get("value", 0))
            else:
                raise NotImplementedError(f"op {op} (node {node['name']}) is not in the reference interpreter")
            (name,) = node["outputs"]
            assert name not in values, f"{name} produced twice"
            values[name] = y
        names = values.keys() if keep_all else self.graph["outputs"]
        return {name: values[name].astype(np.float32) for name in names}


def main() -> None:
    graph = LiftGraph.load(sys.argv[1])
    shape = graph.graph["inputs"][0]["shape"]
    x = np.fromfile(sys.argv[2], dtype="<f4").reshape(shape)
    for name, y in graph.run({graph.graph["inputs"][0]["name"]: x}).items():
        print(name, y.shape, float(y.min()), float(y.max()))


if __name__ == "__main__":
    main()
