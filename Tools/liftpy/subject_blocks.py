"""The building blocks both subject-model encoders are made of: conv+BN+activation, squeeze-excite,
inverted residual (MobileNetV3 / EfficientNet MBConv), and the grouping of blocks into stages.

`subject_model.py` (the MobileNetV3-style encoder, decoder and variants) and `efficientnet_lite.py`
(the EfficientNet-Lite0 encoder of variant e0) both import from here, so neither imports the other's
internals. Every layer maps onto one op of `Sources/LiftModel/GRAPH-FORMAT.md`.
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

ACTIVATIONS = {
    "none": nn.Identity,
    "relu": lambda: nn.ReLU(inplace=True),
    "relu6": lambda: nn.ReLU6(inplace=True),
    "hardswish": lambda: nn.Hardswish(inplace=True),
}


class ConvBNAct(nn.Sequential):
    """conv2d (no bias) + BatchNorm + activation: one `conv2d` node after BN folding. Padding
    is symmetric k//2 * dilation (exported as explicit padding)."""

    def __init__(self, cin, cout, k=1, stride=1, groups=1, dilation=1, act="relu"):
        pad = (k // 2) * dilation
        super().__init__(
            nn.Conv2d(cin, cout, k, stride, pad, dilation=dilation, groups=groups, bias=False),
            nn.BatchNorm2d(cout),
            ACTIVATIONS[act](),
        )
        self.act_name = act


class SqueezeExcite(nn.Module):
    """x * sigmoid(W2 relu(W1 gap(x) + b1) + b2), as in the person model (sigmoid, not
    hardsigmoid): global_avg_pool, two 1x1 conv2d with bias, mul."""

    def __init__(self, ch, squeeze):
        super().__init__()
        self.fc1 = nn.Conv2d(ch, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, ch, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        s = torch.sigmoid(self.fc2(F.relu(self.fc1(s))))
        return x * s


class InvertedResidual(nn.Module):
    """[1x1 expand (act)] -> kxk depthwise (act) -> [SE] -> 1x1 project (linear) [+ x]. Without
    `expand` (EfficientNet's expansion ratio 1) the depthwise convolution reads the input."""

    def __init__(self, cin, exp, cout, k, stride, se, act, expand=True):
        super().__init__()
        self.expand = ConvBNAct(cin, exp, 1, act=act) if expand else nn.Identity()
        self.depthwise = ConvBNAct(exp, exp, k, stride, groups=exp, act=act)
        self.se = SqueezeExcite(exp, se) if se else None
        self.project = ConvBNAct(exp, cout, 1, act="none")
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.depthwise(self.expand(x))
        if self.se is not None:
            y = self.se(y)
        y = self.project(y)
        return x + y if self.residual else y


def stages(blocks) -> list[list[int]]:
    """Block indices grouped by resolution: a stage starts at each stride-2 block."""
    out = []
    for i, b in enumerate(blocks):
        if b[4] == 2 or not out:
            out.append([])
        out[-1].append(i)
    return out
