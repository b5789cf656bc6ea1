"""Training views made on the GPU, a batch at a time: the augmentation of duts_data.Augmenter and
duts_data.color_jitter, rewritten as tensor operations so a lent GPU is not starved by Python.

Input: the whole pack on the device (uint8 photos (N, S, S, 3) and masks (N, S, S), each pair at
the top-left of its slot, `shapes` (N, 2) = h, w). Output: float photos (B, 3, size, size) in
[0, 1] (channels_last) and masks (B, 1, size, size) in [0, 1]. Per view:
- random resized crop: area 0.8-1 of the pair (`scale`), aspect jitter 0.8-1.25, stretched to the square;
- zoom-out (probability `zoom_out_p`): the crop shrunk by 0.45-0.9 to a random place, the canvas
  around it the crop's edge pixels repeated (`zoom_canvas="replicate"`) or the crop reflected
  outwards (`"reflect"`), Gaussian-blurred (sigma 2-6 % of the output side);
- horizontal flip (1/2); brightness, contrast and saturation jitter (+-20 %).
Sampling is bilinear without antialiasing, as the runtime's preprocessing is.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def _reflect01(u: torch.Tensor) -> torch.Tensor:
    """Folds coordinates into [0, 1] by mirroring at 0 and 1 (a triangle wave of period 2)."""
    u = torch.remainder(u, 2.0)
    return torch.where(u > 1.0, 2.0 - u, u)


def _gaussian_blur(x: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """Separable Gaussian blur of (B, C, H, W) with a per-image sigma (B,), in pixels, reflected
    at the borders."""
    b, c, h, w = x.shape
    radius = int(math.ceil(3.0 * float(sigma.max())))
    radius = max(1, min(radius, h - 1, w - 1))
    t = torch.arange(-radius, radius + 1, device=x.device, dtype=x.dtype)
    k = torch.exp(-0.5 * (t[None, :] / sigma[:, None].to(x.dtype)) ** 2)
    k = (k / k.sum(dim=1, keepdim=True)).repeat_interleave(c, dim=0)  # (B*C, K)
    y = x.reshape(1, b * c, h, w)
    y = F.conv2d(F.pad(y, (radius, radius, 0, 0), mode="reflect"), k[:, None, None, :], groups=b * c)
    y = F.conv2d(F.pad(y, (0, 0, radius, radius), mode="reflect"), k[:, None, :, None], groups=b * c)
    return y.reshape(b, c, h, w)


def augment_batch(photos: torch.Tensor, masks: torch.Tensor, shapes: torch.Tensor, idx: torch.Tensor,
                  size: int, generator: torch.Generator, zoom_out_p: float = 0.5,
                  scale=(0.8, 1.0), aspect=(0.8, 1.25), zoom_out=(0.45, 0.9), jitter: float = 0.2,
                  zoom_canvas: str = "replicate"):
    """Random training views of pairs `idx` (see the module doc). All tensors on one device."""
    dev = photos.device
    b = idx.numel()
    slot = photos.shape[1]

    def uniform(lo, hi, n=b):
        return lo + (hi - lo) * torch.rand(n, device=dev, generator=generator)

    h = shapes[idx, 0].float()
    w = shapes[idx, 1].float()
    area = uniform(*scale)
    ratio = torch.exp(uniform(math.log(aspect[0]), math.log(aspect[1])))
    ch = torch.clamp(h * torch.sqrt(area / ratio), min=8.0).minimum(h)
    cw = torch.clamp(w * torch.sqrt(area * ratio), min=8.0).minimum(w)
    y0 = uniform(0, 1) * (h - ch)
    x0 = uniform(0, 1) * (w - cw)

    zoomed = torch.rand(b, device=dev, generator=generator) < zoom_out_p
    z = torch.where(zoomed, uniform(*zoom_out), torch.ones(b, device=dev))
    top = uniform(0, 1) * (1 - z)
    left = uniform(0, 1) * (1 - z)
    flip = torch.rand(b, device=dev, generator=generator) < 0.5

    # Output pixel centres in [0, 1], then crop coordinates u, v (outside [0, 1] on the zoom-out
    # canvas, folded back by mirroring or clamped to the edge), then pixel coordinates in the slot.
    o = (torch.arange(size, device=dev, dtype=torch.float32) + 0.5) / size
    ox = torch.where(flip[:, None], 1 - o[None, :], o[None, :])  # (B, size)
    u = (ox - left[:, None]) / z[:, None]
    v = (o[None, :] - top[:, None]) / z[:, None]
    inside = ((u >= 0) & (u <= 1))[:, None, :] & ((v >= 0) & (v <= 1))[:, :, None]  # (B, size, size)
    if zoom_canvas == "reflect":
        fold = _reflect01
    elif zoom_canvas == "replicate":
        def fold(t):
            return t.clamp(0.0, 1.0)
    else:
        raise ValueError(f"zoom_canvas must be 'reflect' or 'replicate', not {zoom_canvas!r}")
    px = x0[:, None] + fold(u) * cw[:, None]
    py = y0[:, None] + fold(v) * ch[:, None]
    gx = px / slot * 2 - 1  # align_corners=False: -1 and 1 are the slot's outer edges
    gy = py / slot * 2 - 1
    grid = torch.stack([gx[:, None, :].expand(b, size, size), gy[:, :, None].expand(b, size, size)], dim=-1)

    x = photos[idx].permute(0, 3, 1, 2).float() / 255.0
    m = masks[idx][:, None].float() / 255.0
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    m = F.grid_sample(m, grid, mode="bilinear", padding_mode="border", align_corners=False)

    if bool(zoomed.any()):
        sigma = size * uniform(0.02, 0.06)
        blurred = _gaussian_blur(x, sigma)
        keep = inside[:, None] | ~zoomed[:, None, None, None]
        x = torch.where(keep, x, blurred)
        m = torch.where(keep, m, torch.zeros_like(m))

    bright = uniform(1 - jitter, 1 + jitter)[:, None, None, None]
    contrast = uniform(1 - jitter, 1 + jitter)[:, None, None, None]
    saturation = uniform(1 - jitter, 1 + jitter)[:, None, None, None]
    x = x * bright
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * contrast + mean
    grey = (x * torch.tensor([0.299, 0.587, 0.114], device=dev)[None, :, None, None]).sum(dim=1, keepdim=True)
    x = ((x - grey) * saturation + grey).clamp(0.0, 1.0)
    return x.contiguous(memory_format=torch.channels_last), m
