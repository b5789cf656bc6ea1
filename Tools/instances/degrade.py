"""Photographic degradations of a whole image, applied alike to composites and untouched photos so
that neither paste seams nor processing tell them apart: colour jitter, then maybe blur, noise and
JPEG re-compression."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Degradation:
    """Chances and ranges (defaults: training)."""
    jitter: float = 0.12             # brightness / contrast / saturation x(1 +- this)
    blur_p: float = 0.25
    blur: tuple = (0.3, 1.0)         # Gaussian sigma, px
    noise_p: float = 0.4
    noise: tuple = (1.0, 5.0)        # Gaussian noise sigma, in 8-bit levels
    jpeg_p: float = 0.6
    jpeg: tuple = (45, 95)           # quality


def degrade(rng, image: np.ndarray, d: Degradation) -> np.ndarray:
    """A degraded copy of a uint8 RGB image (H, W, 3)."""
    x = image.astype(np.float32)
    if d.jitter > 0:
        b, c, s = rng.uniform(1 - d.jitter, 1 + d.jitter, 3)
        x *= b
        mean = x.mean()
        x = (x - mean) * c + mean
        grey = x @ np.array([0.299, 0.587, 0.114], np.float32)
        x = (x - grey[..., None]) * s + grey[..., None]
    if rng.random() < d.blur_p:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(*d.blur))
    if rng.random() < d.noise_p:
        x += rng.standard_normal(x.shape, dtype=np.float32) * np.float32(rng.uniform(*d.noise))
    out = np.clip(x + 0.5, 0, 255).astype(np.uint8)
    if rng.random() < d.jpeg_p:
        quality = int(rng.integers(d.jpeg[0], d.jpeg[1] + 1))
        ok, buf = cv2.imencode(".jpg", out[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, quality])
        out = np.ascontiguousarray(cv2.imdecode(buf, cv2.IMREAD_COLOR)[..., ::-1])
    return out
