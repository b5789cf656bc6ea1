"""U²-Net-small (U2NETP) in PyTorch, written from the paper, and its export for Lift and onnxruntime.

Qin et al., "U²-Net: Going Deeper with Nested U-Structure for Salient Object Detection" (2020):
six encoder stages and five decoder stages of residual U-blocks (RSU-7, 6, 5, 4 and the dilated
RSU-4F), each block with 16 middle and 64 output channels in the small variant; every block's
convolutions are 3x3 conv + BatchNorm + ReLU; 2x2 max pooling with ceil_mode between levels;
bilinear upsampling to the size of the skip connection; six side outputs (3x3 conv to one channel,
upsampled to the input size) fused by a 1x1 convolution. This module returns only sigmoid(fused),
the map rembg and Lift use. Random seeded weights (no trained weights are shipped or needed).

    python Tools/u2net_small.py --size 320 --out Benchmarks/.work/u2net_small   # .safetensors + .onnx
    python Tools/u2net_small.py --fixture Tests/Fixtures/graphs --size 64       # parity fixture
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_torch import export  # noqa: E402


class ConvBNReLU(nn.Module):
    """3x3 convolution (padding = dilation), BatchNorm, ReLU: the paper's REBNCONV."""

    def __init__(self, cin: int, cout: int, dilation: int = 1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=dilation, dilation=dilation)
        self.bn = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


def upsample_like(x, like):
    return F.interpolate(x, size=like.shape[2:], mode="bilinear", align_corners=False)


class RSU(nn.Module):
    """Residual U-block of `height` levels (RSU-7 … RSU-4): an encoder with max pooling between
    levels, a dilation-2 bottom, a decoder that concatenates skips after bilinear upsampling, and
    the block input added to the result."""

    def __init__(self, height: int, cin: int, mid: int, cout: int):
        super().__init__()
        self.conv_in = ConvBNReLU(cin, cout)
        self.encoder = nn.ModuleList([ConvBNReLU(cout, mid)] + [ConvBNReLU(mid, mid) for _ in range(height - 2)])
        self.pool = nn.MaxPool2d(2, stride=2, ceil_mode=True)
        self.bottom = ConvBNReLU(mid, mid, dilation=2)
        self.decoder = nn.ModuleList([ConvBNReLU(2 * mid, mid) for _ in range(height - 2)] + [ConvBNReLU(2 * mid, cout)])

    def forward(self, x):
        hxin = self.conv_in(x)
        skips = []
        hx = hxin
        for i, conv in enumerate(self.encoder):
            if i > 0:
                hx = self.pool(hx)
            hx = conv(hx)
            skips.append(hx)
        hx = self.bottom(hx)
        for i, conv in enumerate(self.decoder):
            skip = skips[-1 - i]
            if i > 0:
                hx = upsample_like(hx, skip)
            hx = conv(torch.cat((hx, skip), 1))
        return hx + hxin


class RSU4F(nn.Module):
    """RSU-4F: the dilated residual block without pooling (dilations 1, 2, 4, 8 then 4, 2, 1)."""

    def __init__(self, cin: int, mid: int, cout: int):
        super().__init__()
        self.conv_in = ConvBNReLU(cin, cout)
        self.encoder = nn.ModuleList([ConvBNReLU(cout, mid, 1), ConvBNReLU(mid, mid, 2), ConvBNReLU(mid, mid, 4)])
        self.bottom = ConvBNReLU(mid, mid, dilation=8)
        self.decoder = nn.ModuleList([ConvBNReLU(2 * mid, mid, 4), ConvBNReLU(2 * mid, mid, 2), ConvBNReLU(2 * mid, cout, 1)])

    def forward(self, x):
        hxin = self.conv_in(x)
        skips = []
        hx = hxin
        for conv in self.encoder:
            hx = conv(hx)
            skips.append(hx)
        hx = self.bottom(hx)
        for i, conv in enumerate(self.decoder):
            hx = conv(torch.cat((hx, skips[-1 - i]), 1))
        return hx + hxin


class U2NetSmall(nn.Module):
    """U²-Net-small: NCHW RGB in, NCHW one-channel probability (sigmoid of the fused map) out."""

    def __init__(self, mid: int = 16, width: int = 64):
        super().__init__()
        self.pool = nn.MaxPool2d(2, stride=2, ceil_mode=True)
        self.stage1 = RSU(7, 3, mid, width)
        self.stage2 = RSU(6, width, mid, width)
        self.stage3 = RSU(5, width, mid, width)
        self.stage4 = RSU(4, width, mid, width)
        self.stage5 = RSU4F(width, mid, width)
        self.stage6 = RSU4F(width, mid, width)
        self.stage5d = RSU4F(2 * width, mid, width)
        self.stage4d = RSU(4, 2 * width, mid, width)
        self.stage3d = RSU(5, 2 * width, mid, width)
        self.stage2d = RSU(6, 2 * width, mid, width)
        self.stage1d = RSU(7, 2 * width, mid, width)
        self.side = nn.ModuleList([nn.Conv2d(width, 1, 3, padding=1) for _ in range(6)])
        self.fuse = nn.Conv2d(6, 1, 1)

    def forward(self, x):
        hx1 = self.stage1(x)
        hx2 = self.stage2(self.pool(hx1))
        hx3 = self.stage3(self.pool(hx2))
        hx4 = self.stage4(self.pool(hx3))
        hx5 = self.stage5(self.pool(hx4))
        hx6 = self.stage6(self.pool(hx5))
        hx5d = self.stage5d(torch.cat((upsample_like(hx6, hx5), hx5), 1))
        hx4d = self.stage4d(torch.cat((upsample_like(hx5d, hx4), hx4), 1))
        hx3d = self.stage3d(torch.cat((upsample_like(hx4d, hx3), hx3), 1))
        hx2d = self.stage2d(torch.cat((upsample_like(hx3d, hx2), hx2), 1))
        hx1d = self.stage1d(torch.cat((upsample_like(hx2d, hx1), hx1), 1))
        d1 = self.side[0](hx1d)
        sides = [d1] + [upsample_like(self.side[i](h), d1) for i, h in enumerate((hx2d, hx3d, hx4d, hx5d, hx6), 1)]
        return torch.sigmoid(self.fuse(torch.cat(sides, 1)))


def seeded_model(seed: int) -> U2NetSmall:
    """U²-Net-small with seeded random weights and non-trivial BatchNorm statistics, in eval mode."""
    torch.manual_seed(seed)
    model = U2NetSmall()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
        # PyTorch's default init shrinks the fused logits to ~0.03 (every output ≈ sigmoid(0)); larger
        # side and fusion weights spread the map over most of 0…1, so parity tests see real contrast.
        for conv in list(model.side) + [model.fuse]:
            conv.weight.mul_(8)
    return model.eval()


def conv_flops(model: nn.Module, size: int) -> int:
    """2 · multiply-adds of every convolution at a size×size input (the explicit conv formula)."""
    total = 0

    def hook(m, inputs, output):
        nonlocal total
        n, cout, ho, wo = output.shape
        kh, kw = m.kernel_size
        total += 2 * n * ho * wo * cout * (m.in_channels // m.groups) * kh * kw

    handles = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, nn.Conv2d)]
    with torch.no_grad():
        model(torch.zeros(1, 3, size, size))
    for h in handles:
        h.remove()
    return total


INPUT_SPEC = {"name": "image", "height": 320, "width": 320, "layout": "NHWC", "color": "rgb",
              "range": [0, 1], "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225],
              "resize": "stretch", "output": "mask", "output_activation": "sigmoid"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, default=320, help="input height and width of the reference run")
    ap.add_argument("--out", help="path prefix: writes PREFIX.safetensors, PREFIX.onnx, PREFIX.input.f32")
    ap.add_argument("--fixture", help="fixture folder: writes u2net_small.{safetensors,input.f32,output.f32,json}")
    args = ap.parse_args()
    torch.set_num_threads(1)
    model = seeded_model(args.seed)
    params = sum(p.numel() for p in model.parameters())
    gflop = conv_flops(model, 320) / 1e9
    print(f"U2-Net-small: {params} parameters, {gflop:.2f} GFLOP at 320x320")
    gen = torch.Generator().manual_seed(args.seed + 1)
    x = torch.rand(1, 3, args.size, args.size, generator=gen)
    command = " ".join(["Tools/u2net_small.py"] + sys.argv[1:])
    provenance = f"U2-Net-small (Qin et al. 2020) with random weights, seed {args.seed}; generated by {command}"
    if args.out:
        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        export(model, x, args.out + ".safetensors", INPUT_SPEC, provenance, any_size=True)
        torch.onnx.export(model, (x,), args.out + ".onnx", input_names=["image"], output_names=["mask"],
                          opset_version=17, dynamo=False)
        x.permute(0, 2, 3, 1).contiguous().numpy().astype("<f4").tofile(args.out + ".input.f32")
        print(f"wrote {args.out}.safetensors, .onnx, .input.f32 (NHWC {args.size}x{args.size}x3)")
    if args.fixture:
        os.makedirs(args.fixture, exist_ok=True)
        base = os.path.join(args.fixture, "u2net_small")
        export(model, x, base + ".safetensors", INPUT_SPEC, provenance, any_size=True)
        with torch.no_grad():
            y = model(x)
        x.permute(0, 2, 3, 1).contiguous().numpy().astype("<f4").tofile(base + ".input.f32")
        y.permute(0, 2, 3, 1).contiguous().numpy().astype("<f4").tofile(base + ".output.f32")
        shapes = {"input": [1, args.size, args.size, 3], "output": [1, args.size, args.size, 1],
                  "generated_by": command, "seed": args.seed}
        with open(base + ".json", "w") as f:
            f.write(json.dumps(shapes, sort_keys=True, indent=1) + "\n")
        print(f"wrote {base}.*")


if __name__ == "__main__":
    main()
