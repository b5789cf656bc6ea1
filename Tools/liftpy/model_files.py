"""Subject networks from the files the tools write: training checkpoints (`.pt`, from
`liftpy.training.train_subject` and `soup_checkpoints`) and exported Lift model files
(`.safetensors`, from `liftpy.conversion.export_subject`), read back into a PyTorch `SubjectNet`.

The conversion, evaluation, training and instance jobs all read both kinds, so the readers live
here rather than in any one job.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

from liftpy.liftgraph_ref import read_safetensors
from liftpy.subject_model import InstanceHeads, SubjectNet, net_for

# The metadata key of a mask file that names its instance heads' own file (GRAPH-FORMAT.md,
# "Instance heads in their own file").
HEADS_FILE_KEY = "lift.instance-heads"


def load_checkpoint(path, which="ema"):
    """(SubjectNet in eval mode, the checkpoint dict, a label saying which weights) from a `.pt`.
    A best.pt or a soup stores its chosen weights under "ema" (its `which` names them); a last.pt
    holds both, and `which` ("ema" or "model") picks one. Instance heads, when present, are loaded
    too (`forward` ignores them)."""
    ckpt = torch.load(path, map_location="cpu", weights_only=False)
    if "which" in ckpt:
        key, label = "ema", ckpt["which"]
    else:
        key = label = which
    model = net_for(ckpt[key])
    model.load_state_dict(ckpt[key])
    return model.eval(), ckpt, label


def read_exported(path) -> dict:
    """An exported file's tensors (float32 numpy, convolution weights OHWI) by SubjectNet module
    path, with those of the instance heads' own file when it names one (`HEADS_FILE_KEY`). numpy
    only, so it runs where the safetensors package is absent."""
    tensors, metadata = read_safetensors(path)
    if HEADS_FILE_KEY in metadata:
        tensors.update(read_safetensors(Path(path).with_name(metadata[HEADS_FILE_KEY]))[0])
    return {k.removeprefix("net."): v for k, v in tensors.items()}  # the export wrappers' .net


@torch.no_grad()
def load_exported_weights(model: nn.Module, path, tensors: dict | None = None, scaled: dict | None = None) -> int:
    """Loads an exported (BN-folded) file into `model`: each exported conv `NAME.weight` (OHWI) and
    `NAME.bias` goes into the conv at module path NAME; when that conv is followed by a BatchNorm
    (ConvBNAct `X.0`, `X.1`) the bias becomes the BN shift and the BN an identity. Convs that are
    not in the file (the training-only side heads) keep their values. `tensors`: the file's
    `read_exported`, when already read. `scaled`: {NAME: constant the export folded into it}
    (`export_network`'s answer; the instance heads' offset scale), divided out again. A model
    without instance heads takes a file's foreground network only (its `instance.*` tensors are
    skipped): the trainer's `init` builds its heads, fresh, after loading. Returns the number
    loaded."""
    if tensors is None:
        tensors = read_exported(path)
    modules = dict(model.named_modules())
    loaded = 0
    for name, conv in modules.items():
        if not isinstance(conv, nn.Conv2d) or f"{name}.weight" not in tensors:
            continue
        w = torch.from_numpy(tensors[f"{name}.weight"].astype(np.float32)).permute(0, 3, 1, 2)
        b = torch.from_numpy(tensors[f"{name}.bias"].astype(np.float32))
        if scaled and name in scaled:
            w, b = w / scaled[name], b / scaled[name]
        conv.weight.copy_(w)
        parent, _, idx = name.rpartition(".")
        bn = modules.get(f"{parent}.{int(idx) + 1}") if idx.isdigit() else None
        if isinstance(bn, nn.BatchNorm2d):
            bn.weight.fill_(1.0)
            bn.bias.copy_(b)
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)  # identity in eval mode (to float rounding)
        else:
            conv.bias.copy_(b)
        loaded += 1
    heads = getattr(model, "instance", None) is not None
    expected = sum(1 for k in tensors if k.endswith(".weight") and (heads or not k.startswith("instance.")))
    if loaded != expected:
        raise ValueError(f"{path}: {expected} convolutions in the file, {loaded} matched the model")
    return loaded


def load_exported(path, heads=True) -> SubjectNet:
    """A SubjectNet of the variant an exported file holds (told by its convolution weights' shapes),
    with the instance heads when the file has them and `heads` asks for them (their offset
    projection's OFFSET_SCALE, folded in by the export, divided out again), loaded as
    `load_exported_weights` does; the file is read once."""
    tensors = read_exported(path)
    shapes = {}
    for k, v in tensors.items():
        if k.endswith(".weight") and (heads or not k.startswith("instance.")):
            o, h, w, i = v.shape  # OHWI
            shapes[k] = (o, i, h, w)
    model = net_for(shapes)
    scaled = None
    if model.instance is not None:
        last = len(model.instance.branches["offset"]) - 1
        scaled = {f"instance.branches.offset.{last}": InstanceHeads.OFFSET_SCALE}
    load_exported_weights(model, path, tensors, scaled)
    return model


def load_model_file(path, which="ema"):
    """(SubjectNet in channels-last memory, a label) from a `.pt` checkpoint or an exported
    `.safetensors` file."""
    if str(path).endswith(".safetensors"):
        return load_exported(path).to(memory_format=torch.channels_last), f"exported file {path}"
    model, ckpt, label = load_checkpoint(path, which)
    return model.to(memory_format=torch.channels_last), f"{path} [{label} weights, step {ckpt.get('step')}]"
