"""Export a PyTorch `nn.Module` to Lift's model file (`lift.graph/1` in a `.safetensors` file).

The contract is `Sources/LiftModel/GRAPH-FORMAT.md`. Usage from another script:

    from liftpy.export_torch import export
    export(model, torch.rand(1, 3, 320, 320), "out.safetensors",
           input_spec={"name": "image", "output": "mask", ...}, provenance="...", dtype="f32")

The module is traced with `torch.fx` in eval mode. Supported: Conv2d, ConvTranspose2d (groups 1),
BatchNorm2d (folded into the convolution before it), ReLU/ReLU6/Hardswish/Sigmoid/Hardsigmoid/Tanh
(modules, functions and methods), Max/AvgPool2d (incl. ceil_mode), AdaptiveAvgPool2d(1) and
mean over (2, 3), F.interpolate / nn.Upsample (bilinear or nearest, to a size, a scale or the size of
another tensor via `other.shape[2:]`, `other.shape[-2:]` or `other.size()[2:]`), torch.cat on channels, a run of channels `x[:, a:b]` (a `slice`), add/mul/sub of two tensors (broadcast
over H and W allowed), a tensor times a number right after a convolution it alone reads (folded into
that convolution's weights and bias: Panoptic-DeepLab's offset scale), F.pad (constant),
Identity/Dropout (eval: pass-through). Anything else raises
`ExportError` naming the node. The output is deterministic: JSON with sorted keys and no spaces,
tensors in sorted name order, so the same module exported twice gives the same bytes.
"""
from __future__ import annotations

import json
import operator
import struct

import numpy as np
import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F

FORMAT = "lift.graph/1"


class ExportError(Exception):
    """A module or call the exporter cannot express in lift.graph/1."""


# Activation names by the callables/modules/methods that compute them.
_ACTIVATION_MODULES = {nn.ReLU: "relu", nn.ReLU6: "relu6", nn.Hardswish: "hardswish", nn.Sigmoid: "sigmoid",
                       nn.Hardsigmoid: "hardsigmoid", nn.Tanh: "tanh"}
_ACTIVATION_FUNCTIONS = {F.relu: "relu", torch.relu: "relu", F.relu6: "relu6", F.hardswish: "hardswish",
                         torch.sigmoid: "sigmoid", F.sigmoid: "sigmoid", F.hardsigmoid: "hardsigmoid",
                         torch.tanh: "tanh", F.tanh: "tanh"}
_ACTIVATION_METHODS = {"relu": "relu", "sigmoid": "sigmoid", "tanh": "tanh"}
# Activations a conv2d / conv_transpose2d / add / mul / sub node can carry in its `activation` attr.
_FUSABLE = {"relu", "relu6", "hardswish", "sigmoid"}
_BINARY = {operator.add: "add", torch.add: "add", operator.mul: "mul", torch.mul: "mul",
           operator.sub: "sub", torch.sub: "sub"}
_BINARY_METHODS = {"add": "add", "mul": "mul", "sub": "sub"}


def _pair(v):
    return [int(v), int(v)] if isinstance(v, int) else [int(v[0]), int(v[1])]


class _Builder:
    def __init__(self, traced: torch.fx.GraphModule, fuse_activations: bool):
        self.traced = traced
        self.modules = dict(traced.named_modules())
        self.fuse = fuse_activations
        self.nodes: list[dict] = []
        self.weights: dict[str, np.ndarray] = {}
        self.value: dict[torch.fx.Node, str] = {}    # fx node -> lift value name
        self.producer: dict[str, dict] = {}          # lift value name -> lift node that writes it
        self.shape_of: dict[torch.fx.Node, torch.fx.Node] = {}  # getattr(x, "shape")[2:] -> x
        self.consumers: dict[str, int] = {}          # lift value -> number of fx users
        self.scaled: dict[str, float] = {}           # conv weight key -> constant folded into it

    # -- helpers ---------------------------------------------------------------------------------
    def emit(self, fx_node, op, inputs, attrs=None, weights=None):
        out = fx_node.name
        node = {"op": op, "name": fx_node.name, "inputs": inputs, "outputs": [out],
                "attrs": attrs or {}, "weights": weights or {}}
        self.nodes.append(node)
        self.value[fx_node] = out
        self.producer[out] = node
        self.consumers[out] = len(fx_node.users)
        return node

    def alias(self, fx_node, source: torch.fx.Node):
        self.value[fx_node] = self.value[source]
        # The alias's users now also read the source value.
        self.consumers[self.value[source]] = self.consumers.get(self.value[source], 0) - 1 + len(fx_node.users)

    def input_name(self, fx_node, arg) -> str:
        if not isinstance(arg, torch.fx.Node) or arg not in self.value:
            raise ExportError(f"{fx_node.name}: input {arg!r} is not a tensor value of the graph")
        return self.value[arg]

    def sole_producer(self, fx_node, source) -> dict | None:
        """The lift node writing `source` if `fx_node` is its only reader, else None."""
        name = self.value.get(source)
        node = self.producer.get(name)
        if node is None or self.consumers.get(name, 0) != 1:
            return None
        return node

    def activation(self, fx_node, kind: str, source):
        node = self.sole_producer(fx_node, source)
        if (self.fuse and kind in _FUSABLE and node is not None
                and node["op"] in ("conv2d", "conv_transpose2d", "add", "mul", "sub")
                and node["attrs"].get("activation", "none") == "none"):
            node["attrs"]["activation"] = kind
            self.alias(fx_node, source)
            return
        self.emit(fx_node, kind, [self.input_name(fx_node, source)])

    # -- ops ---------------------------------------------------------------------------------------
    def conv(self, fx_node, m: nn.Conv2d):
        if m.padding_mode != "zeros":
            raise ExportError(f"{fx_node.name}: padding_mode {m.padding_mode!r} (only 'zeros')")
        w = m.weight.detach().float().numpy().transpose(0, 2, 3, 1)  # OIHW -> OHWI
        b = m.bias.detach().float().numpy() if m.bias is not None else None
        if isinstance(m.padding, str):
            padding = m.padding  # "valid" or "same" (stride 1: torch and TF SAME agree)
        else:
            ph, pw = _pair(m.padding)
            padding = [ph, pw, ph, pw]
        attrs = {"stride": _pair(m.stride), "dilation": _pair(m.dilation), "padding": padding,
                 "groups": int(m.groups), "activation": "none"}
        self._conv_node(fx_node, "conv2d", w, b, attrs)

    def conv_transpose(self, fx_node, m: nn.ConvTranspose2d):
        if m.groups != 1 or _pair(m.dilation) != [1, 1] or _pair(m.output_padding) != [0, 0]:
            raise ExportError(f"{fx_node.name}: ConvTranspose2d with groups/dilation/output_padding")
        w = m.weight.detach().float().numpy().transpose(1, 2, 3, 0)  # IOHW -> OHWI
        b = m.bias.detach().float().numpy() if m.bias is not None else None
        ph, pw = _pair(m.padding)
        attrs = {"stride": _pair(m.stride), "padding": [ph, pw, ph, pw], "activation": "none"}
        self._conv_node(fx_node, "conv_transpose2d", w, b, attrs)

    def _conv_node(self, fx_node, op, w, b, attrs):
        key = str(fx_node.target)
        weights = {"weight": key + ".weight"}
        self.weights[key + ".weight"] = np.ascontiguousarray(w, dtype=np.float32)
        if b is not None:
            weights["bias"] = key + ".bias"
            self.weights[key + ".bias"] = np.ascontiguousarray(b, dtype=np.float32)
        self.emit(fx_node, op, [self.input_name(fx_node, fx_node.args[0])], attrs, weights)

    def batch_norm(self, fx_node, m: nn.BatchNorm2d):
        source = fx_node.args[0]
        conv = self.sole_producer(fx_node, source)
        if conv is None or conv["op"] not in ("conv2d", "conv_transpose2d") or conv["attrs"]["activation"] != "none":
            raise ExportError(f"{fx_node.name}: BatchNorm2d must directly follow a convolution it alone reads")
        scale = (m.weight.detach().double() / torch.sqrt(m.running_var.detach().double() + m.eps)).numpy()
        shift = m.bias.detach().double().numpy() - m.running_mean.detach().double().numpy() * scale
        wname = conv["weights"]["weight"]
        self.weights[wname] = (self.weights[wname].astype(np.float64) * scale[:, None, None, None]).astype(np.float32)
        bname = conv["weights"].get("bias") or wname[: -len(".weight")] + ".bias"
        bias = self.weights.get(bname, np.zeros(scale.shape[0], dtype=np.float32)).astype(np.float64)
        self.weights[bname] = (bias * scale + shift).astype(np.float32)
        conv["weights"]["bias"] = bname
        self.alias(fx_node, source)

    def pool(self, fx_node, op, kernel, stride, padding, ceil_mode, count_include_pad=None, dilation=1):
        if _pair(dilation) != [1, 1]:
            raise ExportError(f"{fx_node.name}: pooling with dilation")
        k = _pair(kernel)
        s = _pair(stride) if stride not in (None, []) else k
        p = _pair(padding)
        attrs = {"kernel": k, "stride": s, "padding": [p[0], p[1], p[0], p[1]], "ceil_mode": bool(ceil_mode)}
        if op == "avg_pool2d":
            attrs["count_include_pad"] = bool(count_include_pad)
        self.emit(fx_node, op, [self.input_name(fx_node, fx_node.args[0])], attrs)

    def resize(self, fx_node, x, size=None, scale=None, mode="nearest", align_corners=None):
        if mode not in ("bilinear", "nearest", "nearest-exact"):
            raise ExportError(f"{fx_node.name}: interpolate mode {mode!r}")
        op = "resize_bilinear" if mode == "bilinear" else "resize_nearest"
        if mode == "bilinear":
            coords = "align_corners" if align_corners else "half_pixel"
        else:
            coords = "half_pixel" if mode == "nearest-exact" else "asymmetric"
        inputs = [self.input_name(fx_node, x)]
        attrs = {"coordinates": coords}
        if isinstance(size, torch.fx.Node):
            if size not in self.shape_of:
                raise ExportError(f"{fx_node.name}: interpolate size must be a constant or other.shape[2:]")
            inputs.append(self.input_name(fx_node, self.shape_of[size]))
        elif size is not None:
            attrs["size"] = _pair(size)
        elif scale is not None:
            attrs["scale"] = [float(v) for v in ((scale, scale) if isinstance(scale, (int, float)) else scale)]
        else:
            raise ExportError(f"{fx_node.name}: interpolate without size or scale")
        self.emit(fx_node, op, inputs, attrs)

    def binary(self, fx_node, op, a, b):
        if op == "mul" and isinstance(b, torch.fx.Node) != isinstance(a, torch.fx.Node):
            tensor, number = (a, b) if isinstance(a, torch.fx.Node) else (b, a)
            if isinstance(number, (int, float)) and self.fold_scale(fx_node, tensor, float(number)):
                return
        if not isinstance(a, torch.fx.Node) or not isinstance(b, torch.fx.Node):
            raise ExportError(f"{fx_node.name}: {op} with a constant (only tensor {op} tensor)")
        self.emit(fx_node, op, [self.input_name(fx_node, a), self.input_name(fx_node, b)], {"activation": "none"})

    def fold_scale(self, fx_node, source, factor: float) -> bool:
        """`source * factor` where `source` is a convolution without activation that only this
        multiplication reads: the factor goes into its weights and bias (recorded in `scaled`)."""
        conv = self.sole_producer(fx_node, source)
        if conv is None or conv["op"] not in ("conv2d", "conv_transpose2d") or conv["attrs"]["activation"] != "none":
            return False
        for role in ("weight", "bias"):
            name = conv["weights"].get(role)
            if name is not None:
                self.weights[name] = (self.weights[name].astype(np.float64) * factor).astype(np.float32)
        key = conv["weights"]["weight"][: -len(".weight")]
        self.scaled[key] = self.scaled.get(key, 1.0) * factor
        self.alias(fx_node, source)
        return True

    # -- dispatch ----------------------------------------------------------------------------------
    def visit(self, n: torch.fx.Node):
        if n.op == "call_module":
            m = self.modules[n.target]
            if isinstance(m, nn.Conv2d):
                self.conv(n, m)
            elif isinstance(m, nn.ConvTranspose2d):
                self.conv_transpose(n, m)
            elif isinstance(m, nn.BatchNorm2d):
                self.batch_norm(n, m)
            elif type(m) in _ACTIVATION_MODULES:
                self.activation(n, _ACTIVATION_MODULES[type(m)], n.args[0])
            elif isinstance(m, nn.Hardtanh) and (m.min_val, m.max_val) == (0.0, 6.0):
                self.activation(n, "relu6", n.args[0])
            elif isinstance(m, nn.MaxPool2d):
                self.pool(n, "max_pool2d", m.kernel_size, m.stride, m.padding, m.ceil_mode, dilation=m.dilation)
            elif isinstance(m, nn.AvgPool2d):
                self.pool(n, "avg_pool2d", m.kernel_size, m.stride, m.padding, m.ceil_mode, m.count_include_pad)
            elif isinstance(m, nn.AdaptiveAvgPool2d) and _pair(m.output_size) == [1, 1]:
                self.emit(n, "global_avg_pool", [self.input_name(n, n.args[0])])
            elif isinstance(m, nn.Upsample):
                self.resize(n, n.args[0], m.size, m.scale_factor, m.mode, m.align_corners)
            elif isinstance(m, (nn.Identity, nn.Dropout)):
                self.alias(n, n.args[0])
            else:
                raise ExportError(f"{n.name}: unsupported module {type(m).__name__}")
        elif n.op == "call_function":
            self.call(n, n.target, list(n.args), dict(n.kwargs))
        elif n.op == "call_method":
            self.method(n)
        else:
            raise ExportError(f"{n.name}: unsupported fx node kind {n.op}")

    def call(self, n, f, args, kw):
        def arg(i, name, default=None):
            return args[i] if len(args) > i else kw.get(name, default)

        if f in _ACTIVATION_FUNCTIONS:
            self.activation(n, _ACTIVATION_FUNCTIONS[f], args[0])
        elif f is F.hardtanh and (arg(1, "min_val", -1.0), arg(2, "max_val", 1.0)) == (0.0, 6.0):
            self.activation(n, "relu6", args[0])
        elif f in _BINARY:
            self.binary(n, _BINARY[f], args[0], args[1])
        elif f is torch.cat:
            dim = arg(1, "dim", 0)
            if dim not in (1, -3):
                raise ExportError(f"{n.name}: torch.cat on dim {dim} (only channels, dim 1)")
            self.emit(n, "concat", [self.input_name(n, a) for a in args[0]], {"axis": 3})
        elif f is F.interpolate:
            self.resize(n, args[0], arg(1, "size"), arg(2, "scale_factor"), arg(3, "mode", "nearest"),
                        arg(4, "align_corners"))
        elif f is F.max_pool2d:
            self.pool(n, "max_pool2d", arg(1, "kernel_size"), arg(2, "stride"), arg(3, "padding", 0),
                      arg(5, "ceil_mode", False), dilation=arg(4, "dilation", 1))
        elif f is F.avg_pool2d:
            self.pool(n, "avg_pool2d", arg(1, "kernel_size"), arg(2, "stride"), arg(3, "padding", 0),
                      arg(4, "ceil_mode", False), arg(5, "count_include_pad", True))
        elif f is F.adaptive_avg_pool2d and _pair(arg(1, "output_size")) == [1, 1]:
            self.emit(n, "global_avg_pool", [self.input_name(n, args[0])])
        elif f is F.pad:
            pads, mode, value = arg(1, "pad"), arg(2, "mode", "constant"), arg(3, "value", 0.0)
            if mode != "constant" or len(pads) != 4:
                raise ExportError(f"{n.name}: F.pad mode {mode!r} with {len(pads)} pads (only constant, 4)")
            left, right, top, bottom = (int(v) for v in pads)
            self.emit(n, "pad", [self.input_name(n, args[0])],
                      {"pads": [top, left, bottom, right], "value": float(value or 0.0)})
        elif f is getattr and args[1] == "shape":
            self.shape_of[n] = args[0]
        elif f is operator.getitem and args[0] in self.shape_of and args[1] in (slice(2, None, None), slice(-2, None, None)):
            self.shape_of[n] = self.shape_of[args[0]]
        elif f is operator.getitem and _channel_range(args[1]) is not None:
            start, end = _channel_range(args[1])
            self.emit(n, "slice", [self.input_name(n, args[0])], {"axis": 3, "start": start, "end": end})
        elif f is torch.mean and _is_hw(arg(1, "dim")) and arg(2, "keepdim", False):
            self.emit(n, "global_avg_pool", [self.input_name(n, args[0])])
        elif f is F.dropout:
            self.alias(n, args[0])
        else:
            raise ExportError(f"{n.name}: unsupported function {getattr(f, '__name__', f)}")

    def method(self, n):
        name, args, kw = n.target, list(n.args), dict(n.kwargs)
        if name in _ACTIVATION_METHODS:
            self.activation(n, _ACTIVATION_METHODS[name], args[0])
        elif name in _BINARY_METHODS:
            self.binary(n, _BINARY_METHODS[name], args[0], args[1])
        elif name == "mean" and _is_hw(args[1] if len(args) > 1 else kw.get("dim")) and kw.get("keepdim", False):
            self.emit(n, "global_avg_pool", [self.input_name(n, args[0])])
        elif name == "size" and len(args) == 1:
            self.shape_of[n] = args[0]
        elif name == "contiguous":
            self.alias(n, args[0])
        else:
            raise ExportError(f"{n.name}: unsupported method .{name}()")


def _channel_range(index) -> tuple[int, int] | None:
    """(start, end) of an index `[:, start:end]` (channels of an NCHW tensor, both given, step 1),
    else None."""
    if not (isinstance(index, tuple) and len(index) == 2 and index[0] == slice(None)):
        return None
    s = index[1]
    if not isinstance(s, slice) or s.step not in (None, 1) or not isinstance(s.start, int) or not isinstance(s.stop, int):
        return None
    return (s.start, s.stop) if 0 <= s.start < s.stop else None


def _is_hw(dim) -> bool:
    return isinstance(dim, (tuple, list)) and sorted(int(d) % 4 for d in dim) == [2, 3]


def _json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def write_safetensors(path: str, tensors: dict[str, np.ndarray], metadata: dict[str, str], dtype: str = "f32"):
    """Writes `tensors` (any float arrays) as F32 or F16 in sorted name order with `metadata`.

    The header is JSON with sorted keys, padded with spaces to a multiple of 8 bytes.
    """
    np_dtype, tag = {"f32": (np.dtype("<f4"), "F32"), "f16": (np.dtype("<f2"), "F16")}[dtype]
    header: dict = {"__metadata__": dict(metadata)}
    blobs, offset = [], 0
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name], dtype=np_dtype).tobytes()
        header[name] = {"dtype": tag, "shape": [int(d) for d in tensors[name].shape],
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = _json(header).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def to_graph(module: nn.Module, example_input: torch.Tensor, input_name: str = "image",
             output_name: str = "mask", any_size: bool = False,
             fuse_activations: bool = True, output_names: list[str] | None = None,
             scaled: dict | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """Traces `module` and returns (graph JSON object, weights by name as float32 OHWI arrays).

    The first module output is named `output_name`, further ones `output_name` + "1", "2", ...,
    unless `output_names` names them all (its first must be `output_name`). `scaled`, when given,
    receives {convolution name: constant folded into its weights and bias}.
    """
    module = module.eval()
    traced = torch.fx.symbolic_trace(module)
    b = _Builder(traced, fuse_activations)
    outputs: list[str] = []
    with torch.no_grad():
        for n in traced.graph.nodes:
            if n.op == "placeholder":
                if b.value:
                    raise ExportError(f"{n.name}: only one graph input is supported")
                b.value[n] = input_name
                b.consumers[input_name] = len(n.users)
            elif n.op == "output":
                result = n.args[0]
                results = list(result) if isinstance(result, (tuple, list)) else [result]
                outputs = [b.input_name(n, r) for r in results]
            else:
                b.visit(n)
    names = [output_name] + [f"{output_name}{i}" for i in range(1, len(outputs))]
    if output_names is not None:
        if len(output_names) != len(outputs) or output_names[0] != output_name or len(set(output_names)) != len(outputs):
            raise ExportError(f"{len(outputs)} module outputs, named {output_names} (distinct, the first {output_name!r})")
        names = list(output_names)
    if scaled is not None:
        scaled.update(b.scaled)
    for i, (value, name) in enumerate(zip(outputs, names)):
        node = b.producer.get(value)
        if node is None or name in b.producer or value in outputs[:i]:
            raise ExportError(f"output {name!r} must be produced by its own node")
        node["outputs"] = [name]
        del b.producer[value]
        b.producer[name] = node
        for other in b.nodes:
            other["inputs"] = [name if v == value else v for v in other["inputs"]]
    _, c, h, w = example_input.shape
    shape = [1, -1, -1, int(c)] if any_size else [1, int(h), int(w), int(c)]
    graph = {"format": FORMAT, "inputs": [{"name": input_name, "shape": shape}],
             "outputs": names, "nodes": b.nodes}
    return graph, b.weights


def export(module: nn.Module, example_input: torch.Tensor, path: str, input_spec: dict | None, provenance: str,
           dtype: str = "f32", any_size: bool = False, fuse_activations: bool = True,
           output_names: list[str] | None = None, scaled: dict | None = None, metadata: dict | None = None,
           input_name: str = "image") -> dict:
    """Exports `module` to a Lift model file at `path` and returns the graph JSON object.

    - example_input: an NCHW tensor of the size the model is meant for (batch 1).
    - input_spec: the `lift.input` object (GRAPH-FORMAT.md); its `name` names the graph input and its
      `output` the (first) graph output. None for a graph that does not read a photo (instance heads
      in their own file): no `lift.input`, the input named `input_name`, the outputs `output_names`.
    - provenance: free text stored as `lift.provenance` (source, licence, script and arguments).
    - dtype: "f32" or "f16" storage of the weights (Lift converts to Float32 at load).
    - any_size: write H and W as -1 (the graph accepts any input size) instead of the example's.
    - fuse_activations: put an activation that alone reads a conv/add/mul output into that node.
    - output_names: every graph output's name, the first `input_spec["output"]` (default: that name,
      then that name + "1", "2", ...).
    - scaled: receives {convolution name: constant folded into it} (see `to_graph`).
    - metadata: further `__metadata__` entries (`lift.instance-heads`).
    """
    spec = input_spec or {}
    graph, weights = to_graph(module, example_input, spec.get("name", input_name),
                              spec.get("output", output_names[0] if output_names else "mask"), any_size, fuse_activations,
                              output_names, scaled)
    header = {"lift.graph": _json(graph), "lift.provenance": provenance, **(metadata or {})}
    if input_spec is not None:
        header["lift.input"] = _json(input_spec)
    write_safetensors(path, weights, header, dtype)
    return graph
