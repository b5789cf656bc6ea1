"""Training views made on the GPU, a batch at a time: the augmentation of duts_data.Augmenter and
duts_data.color_jitter, rewritten as tensor operations so a lent GPU is not starved by Python.

Input: the whole pack on the device (uint8 photos (N, S, S, 3) and masks (N, S, S), each pair at
the top-left of its slot, `shapes` (N, 2) = h, w, and for zoom-in and copy-paste `boxes` (N, 4) =
the object's bounding box y0, y1, x0, x1 in slot pixels, end exclusive, from `object_boxes`).
Output: float photos (B, 3, size, size) in [0, 1] (channels_last) and masks (B, 1, size, size) in
[0, 1]. Per view:
- random resized crop: area 0.8-1 of the pair (`scale`), aspect jitter 0.8-1.25, stretched to the square;
- zoom-in (probability `zoom_in_p`, instead of the crop above): area `zoom_in` (0.3-0.6) of the
  pair, centred on a random point of the object's bounding box, kept inside the photo;
- zoom-out (probability `zoom_out_p`, never on a zoom-in view): the crop shrunk by 0.45-0.9 to a
  random place, the canvas around it the crop's edge pixels repeated (`zoom_canvas="replicate"`)
  or the crop reflected outwards (`"reflect"`), Gaussian-blurred (sigma 2-6 % of the output side);
- horizontal flip (1/2);
- copy-paste (probability `paste_p`): another pair's object (its bounding box, maybe mirrored,
  its longer side `paste_scale` (0.4-0.9) of the crop's shorter side) blended by its soft mask onto
  the view at a random place; the mask becomes the union, alpha + (1 - alpha) * mask;
- brightness, contrast and saturation jitter (+-20 %).
Sampling is bilinear without antialiasing, as the runtime's preprocessing is. Zoom-in and copy-paste
are duts_data.Augmenter's, with one difference: the object is pasted onto the finished view, so on
a zoom-out view it may land on the blurred canvas (duts_data pastes before zooming out).
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


def object_boxes(masks: torch.Tensor, shapes: torch.Tensor) -> torch.Tensor:
    """Bounding boxes (N, 4) = y0, y1, x0, x1 (float, slot pixels, end exclusive) of each mask's
    pixels > 127, within the pair's own h x w; an empty mask gets the whole pair (as
    duts_data.Augmenter._around_object does)."""
    boxes = torch.empty((masks.shape[0], 4), device=masks.device)
    for lo in range(0, masks.shape[0], 1024):  # in chunks: a boolean copy of the whole pack is large
        m = masks[lo:lo + 1024] > 127
        rows, cols = m.any(dim=2), m.any(dim=1)
        n, s = rows.shape
        ar = torch.arange(s, device=masks.device)
        h, w = shapes[lo:lo + n, 0], shapes[lo:lo + n, 1]
        big = torch.full_like(rows, s, dtype=torch.long)
        y0 = torch.where(rows, ar, big).min(dim=1).values
        y1 = torch.where(rows, ar + 1, torch.zeros_like(big)).max(dim=1).values
        x0 = torch.where(cols, ar, big).min(dim=1).values
        x1 = torch.where(cols, ar + 1, torch.zeros_like(big)).max(dim=1).values
        empty = ~rows.any(dim=1)
        y0, x0 = torch.where(empty, 0, y0), torch.where(empty, 0, x0)
        y1, x1 = torch.where(empty, h, y1), torch.where(empty, w, x1)
        boxes[lo:lo + n] = torch.stack([y0, y1, x0, x1], dim=1).float()
    return boxes


def augment_batch(photos: torch.Tensor, masks: torch.Tensor, shapes: torch.Tensor, idx: torch.Tensor,
                  size: int, generator: torch.Generator, zoom_out_p: float = 0.5,
                  scale=(0.8, 1.0), aspect=(0.8, 1.25), zoom_out=(0.45, 0.9), jitter: float = 0.2,
                  zoom_canvas: str = "replicate", boxes: torch.Tensor | None = None,
                  zoom_in_p: float = 0.0, zoom_in=(0.3, 0.6), paste_p: float = 0.0, paste_scale=(0.4, 0.9)):
    """Random training views of pairs `idx` (see the module doc). All tensors on one device."""
    dev = photos.device
    b = idx.numel()
    slot = photos.shape[1]
    if (zoom_in_p > 0 or paste_p > 0) and boxes is None:
        raise ValueError("zoom-in and copy-paste need the objects' boxes (object_boxes)")

    def uniform(lo, hi, n=b):
        return lo + (hi - lo) * torch.rand(n, device=dev, generator=generator)

    h = shapes[idx, 0].float()
    w = shapes[idx, 1].float()
    zoom_ins = torch.rand(b, device=dev, generator=generator) < zoom_in_p
    area = torch.where(zoom_ins, uniform(*zoom_in), uniform(*scale))
    ratio = torch.exp(uniform(math.log(aspect[0]), math.log(aspect[1])))
    ch = torch.clamp(h * torch.sqrt(area / ratio), min=8.0).minimum(h)
    cw = torch.clamp(w * torch.sqrt(area * ratio), min=8.0).minimum(w)
    y0 = uniform(0, 1) * (h - ch)
    x0 = uniform(0, 1) * (w - cw)
    if zoom_in_p > 0:
        box = boxes[idx]
        cy = box[:, 0] + uniform(0, 1) * (box[:, 1] - box[:, 0])
        cx = box[:, 2] + uniform(0, 1) * (box[:, 3] - box[:, 2])
        y0 = torch.where(zoom_ins, torch.minimum((cy - ch / 2).clamp(min=0.0), h - ch), y0)
        x0 = torch.where(zoom_ins, torch.minimum((cx - cw / 2).clamp(min=0.0), w - cw), x0)

    zoomed = (torch.rand(b, device=dev, generator=generator) < zoom_out_p) & ~zoom_ins
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

    if paste_p > 0:
        x, m = _paste(photos, masks, boxes, x, m, ch, cw, o, uniform, generator, paste_p, paste_scale)

    bright = uniform(1 - jitter, 1 + jitter)[:, None, None, None]
    contrast = uniform(1 - jitter, 1 + jitter)[:, None, None, None]
    saturation = uniform(1 - jitter, 1 + jitter)[:, None, None, None]
    x = x * bright
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * contrast + mean
    grey = (x * torch.tensor([0.299, 0.587, 0.114], device=dev)[None, :, None, None]).sum(dim=1, keepdim=True)
    x = ((x - grey) * saturation + grey).clamp(0.0, 1.0)
    return x.contiguous(memory_format=torch.channels_last), m


def _paste(photos, masks, boxes, x, m, ch, cw, o, uniform, generator, paste_p, paste_scale):
    """Copy-paste onto finished views x (B, 3, s, s), m (B, 1, s, s) whose crops were ch x cw slot
    pixels (see the module doc); `o` the output pixel centres in [0, 1]."""
    dev = x.device
    b, size = x.shape[0], x.shape[-1]
    slot = photos.shape[1]
    pasted = torch.rand(b, device=dev, generator=generator) < paste_p
    donor = torch.randint(0, photos.shape[0], (b,), device=dev, generator=generator)
    box = boxes[donor]
    bh, bw = box[:, 1] - box[:, 0], box[:, 3] - box[:, 2]
    k = uniform(*paste_scale) * torch.minimum(ch, cw) / torch.maximum(bh, bw)
    oh = torch.minimum(bh * k, ch) / ch  # the pasted object's height and width, shares of the view
    ow = torch.minimum(bw * k, cw) / cw
    top = uniform(0, 1) * (1 - oh)
    left = uniform(0, 1) * (1 - ow)
    mirror = torch.rand(b, device=dev, generator=generator) < 0.5
    u = (o[None, :] - left[:, None]) / ow[:, None]  # (B, size): position across the object, 0-1 inside
    v = (o[None, :] - top[:, None]) / oh[:, None]
    inside = ((u >= 0) & (u <= 1))[:, None, :] & ((v >= 0) & (v <= 1))[:, :, None]
    u = torch.where(mirror[:, None], 1 - u, u).clamp(0.0, 1.0)
    px = box[:, 2, None] + u * bw[:, None]
    py = box[:, 0, None] + v.clamp(0.0, 1.0) * bh[:, None]
    gx, gy = px / slot * 2 - 1, py / slot * 2 - 1
    grid = torch.stack([gx[:, None, :].expand(b, size, size), gy[:, :, None].expand(b, size, size)], dim=-1)
    obj = F.grid_sample(photos[donor].permute(0, 3, 1, 2).float() / 255.0, grid, mode="bilinear",
                        padding_mode="border", align_corners=False)
    alpha = F.grid_sample(masks[donor][:, None].float() / 255.0, grid, mode="bilinear",
                          padding_mode="border", align_corners=False)
    alpha = alpha * (inside & pasted[:, None, None])[:, None].float()
    return alpha * obj + (1 - alpha) * x, alpha + (1 - alpha) * m
