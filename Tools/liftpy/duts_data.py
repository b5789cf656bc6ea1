"""DUTS data for training Lift's subject model: decode once into RAM, augment, batch.

The DUTS tar shards (../shared/data/duts/, read-only, never copied into the repo) hold
`KEY.jpg` (RGB photo) + `KEY.png` (8-bit grey mask, 255 = salient object) pairs. This module
decodes a whole split once into uint8 arrays (DUTS-TR at 256 px is ~2 GB) and caches them as
one flat `.npy` per split under the ignored `Tools/.cache/duts/` so a restart loads in seconds.

Augmentation (training only), tuned for the validation set's smaller objects:
- random resized crop with mild scale (area 0.8-1 of the photo by default: the 256-px shards make
  every smaller crop an enlargement, and 0.6-1 did measurably worse, Tools/training/runs.md run `xxc2`) and
  mild aspect jitter, stretched to the square model input (the runtime stretches the whole photo,
  so training does too);
- zoom-out (half the views by default): the photo pasted smaller on a blurred canvas grown from its
  own edges, either with the edge pixels repeated outwards (`zoom_canvas="replicate"`, the default)
  or reflected outwards (`"reflect"`, which shows mirror copies of the subject labelled background);
- horizontal flip; mild brightness / contrast / saturation jitter.
Two more, off by default, aimed at photos unlike DUTS (ECSSD: larger objects, cluttered scenes):
- zoom-in (`zoom_in_p`): a smaller crop (area `zoom_in` of the photo) centred on a point of the
  object's bounding box, so the object fills or overflows the frame; such a view is not also zoomed out;
- copy-paste (`paste_p`): another training pair's object (its photo cut out by its soft mask, scaled
  to `paste_scale` of the frame's side) pasted onto this view; the mask is the union of both objects.
Tools/training/gpu_augment.py makes the default views as tensor code for the GPU trainer (it has
neither zoom-in nor copy-paste): change both together.
"""
from __future__ import annotations

import io
import os
import queue
import tarfile
import threading
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

cv2.setNumThreads(1)

REPO = Path(__file__).resolve().parents[2]
DUTS_DIR = Path(os.environ.get("LIFT_DUTS_DIR", REPO.parent / "shared" / "data" / "duts"))
ECSSD_DIR = Path(os.environ.get("LIFT_ECSSD_DIR", REPO.parent / "shared" / "data" / "ecssd"))
CACHE_DIR = Path(os.environ.get("LIFT_DUTS_CACHE", REPO / "Tools" / ".cache" / "duts"))
TRAIN_SHARDS = [f"duts-tr-256-{i:03d}.tar" for i in range(4)]
VAL_SHARDS = ["duts-te-val500-320-000.tar"]
# name -> (folder, shards). `extra`: the rest of DUTS-TE, which may be trained on (disjoint from
# `val`); `ecssd`: 500 ECSSD pairs, a second validation set (never train on `val` or `ecssd`).
SPLITS = {
    "train": (DUTS_DIR, TRAIN_SHARDS),
    "extra": (DUTS_DIR, [f"duts-te-extra-256-{i:03d}.tar" for i in range(2)]),
    "val": (DUTS_DIR, VAL_SHARDS),
    "ecssd": (ECSSD_DIR, ["ecssd-val500-320-000.tar"]),
}
VAL_SETS = {"duts": "val", "ecssd": "ecssd"}  # validation set name -> split name


class Split:
    """A decoded split: photos (H, W, 3) uint8 and masks (H, W) uint8, one pair per key."""

    def __init__(self, keys, shapes, flat_rgb, flat_mask, offsets):
        self.keys = keys
        self.shapes = shapes  # (n, 2) int64: height, width
        self.flat_rgb = flat_rgb
        self.flat_mask = flat_mask
        self.offsets = offsets  # (n + 1,) pixel offsets into the flat arrays

    def __len__(self):
        return len(self.keys)

    def pair(self, i):
        h, w = (int(v) for v in self.shapes[i])
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.flat_rgb[a * 3:b * 3].reshape(h, w, 3), self.flat_mask[a:b].reshape(h, w)

    def with_masks(self, flat_mask):
        """The same photos with other masks (flat uint8, same layout), e.g. distillation targets."""
        assert flat_mask.shape == self.flat_mask.shape and flat_mask.dtype == np.uint8
        return Split(self.keys, self.shapes, self.flat_rgb, flat_mask, self.offsets)


class Joined:
    """Several splits read as one (only `len` and `pair`, which is all TrainBatches needs)."""

    def __init__(self, *splits):
        self.splits = splits
        self.starts = np.cumsum([0] + [len(s) for s in splits])
        self.keys = [k for s in splits for k in s.keys]

    def __len__(self):
        return int(self.starts[-1])

    def pair(self, i):
        j = int(np.searchsorted(self.starts, i, side="right")) - 1
        return self.splits[j].pair(i - int(self.starts[j]))


class Without:
    """A split less the pairs whose keys are in `keys` (`len`, `pair` and `keys`, as Joined reads)."""

    def __init__(self, split, keys):
        self.split = split
        self.index = [i for i, k in enumerate(split.keys) if str(k) not in keys]
        self.keys = [split.keys[i] for i in self.index]

    def __len__(self):
        return len(self.index)

    def pair(self, i):
        return self.split.pair(self.index[i])


def blend_targets(masks, teacher, share: float):
    """(1 - share) masks + share teacher, rounded, as flat uint8 (both flat uint8, same layout)."""
    blended = (1.0 - share) * masks.astype(np.float32) + share * teacher.astype(np.float32)
    return np.clip(np.rint(blended), 0, 255).astype(np.uint8)


def _decode_shards(folder, shard_names):
    photos, masks = {}, {}
    for name in shard_names:
        with tarfile.open(folder / name) as tar:
            for member in tar:
                if not member.isfile():
                    continue
                key, ext = member.name.rsplit(".", 1)
                data = tar.extractfile(member).read()
                img = Image.open(io.BytesIO(data))
                if ext == "jpg":
                    photos[key] = np.asarray(img.convert("RGB"), dtype=np.uint8)
                elif ext == "png":
                    masks[key] = np.asarray(img.convert("L"), dtype=np.uint8)
    keys = sorted(photos)
    missing = [k for k in keys if k not in masks or masks[k].shape != photos[k].shape[:2]]
    if missing:
        raise ValueError(f"{len(missing)} samples without a same-size mask, e.g. {missing[:3]}")
    return keys, photos, masks


def load_split(name: str, use_cache: bool = True) -> Split:
    """Loads `train` (DUTS-TR, 10,553 pairs), `extra` (4,019 more DUTS-TE pairs that may be trained
    on), `val` (the fixed 500 DUTS-TE pairs) or `ecssd` (500 ECSSD pairs, validation only)."""
    folder, shards = SPLITS[name]
    cache = CACHE_DIR / f"{name}.npz"
    if use_cache and cache.exists():
        z = np.load(cache, allow_pickle=False)
        return Split(list(z["keys"]), z["shapes"], z["rgb"], z["mask"], z["offsets"])
    keys, photos, masks = _decode_shards(folder, shards)
    shapes = np.array([masks[k].shape for k in keys], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(shapes[:, 0] * shapes[:, 1])]).astype(np.int64)
    rgb = np.concatenate([photos[k].reshape(-1) for k in keys])
    mask = np.concatenate([masks[k].reshape(-1) for k in keys])
    if use_cache:
        save_npz(cache, keys=np.array(keys), shapes=shapes, rgb=rgb, mask=mask, offsets=offsets)
    return Split(keys, shapes, rgb, mask, offsets)


def save_npz(path: Path, **arrays):
    """Writes `arrays` to `path` (.npz) atomically: a file of this process renamed into place, so
    runs started together each write their own and a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, path)


def stretch(photo: np.ndarray, size: int) -> np.ndarray:
    """The runtime's preprocessing (Lift's `"area"` resize, AreaResize.swift): the whole frame
    stretched to size x size with half-pixel centres, one axis at a time in float, each axis the mean
    of the area a pixel covers when it shrinks (OpenCV's INTER_AREA) and bilinear when it grows;
    rounded to 8 bits, as float32 in [0, 1], HWC."""
    x = photo.astype(np.float32)
    h, w = x.shape[:2]
    x = cv2.resize(x, (size, h), interpolation=cv2.INTER_AREA if w > size else cv2.INTER_LINEAR)
    x = cv2.resize(x, (size, size), interpolation=cv2.INTER_AREA if h > size else cv2.INTER_LINEAR)
    return np.floor(np.clip(x + 0.5, 0, 255)) / 255.0


# How the zoom-out canvas grows from the pasted crop's edges (OpenCV border modes).
ZOOM_CANVASES = {"reflect": cv2.BORDER_REFLECT_101, "replicate": cv2.BORDER_REPLICATE}


class Augmenter:
    """Random training views of one pair at `size` x `size` (uint8 photo, float mask)."""

    def __init__(self, size=256, scale=(0.8, 1.0), aspect=(0.8, 1.25), zoom_out_p=0.5,
                 zoom_out=(0.45, 0.9), flip_p=0.5, zoom_canvas="replicate",
                 zoom_in_p=0.0, zoom_in=(0.3, 0.6), paste_p=0.0, paste_scale=(0.4, 0.9)):
        if zoom_canvas not in ZOOM_CANVASES:
            raise ValueError(f"zoom_canvas must be one of {sorted(ZOOM_CANVASES)}, not {zoom_canvas!r}")
        self.size, self.scale, self.aspect = size, scale, aspect
        self.zoom_out_p, self.zoom_out, self.flip_p = zoom_out_p, zoom_out, flip_p
        self.border = ZOOM_CANVASES[zoom_canvas]
        self.zoom_in_p, self.zoom_in = zoom_in_p, zoom_in
        self.paste_p, self.paste_scale = paste_p, paste_scale

    def __call__(self, rng: np.random.Generator, photo: np.ndarray, mask: np.ndarray, donor=None):
        """`donor`: a callable returning another training pair (photo, mask), used by copy-paste.
        With zoom_in_p = paste_p = 0 the random draws are exactly those of the default recipe."""
        h, w = mask.shape
        s = self.size
        zoom_in = self.zoom_in_p > 0 and rng.random() < self.zoom_in_p
        area = rng.uniform(*(self.zoom_in if zoom_in else self.scale))
        ratio = np.exp(rng.uniform(np.log(self.aspect[0]), np.log(self.aspect[1])))
        ch = int(round(h * np.sqrt(area / ratio)))
        cw = int(round(w * np.sqrt(area * ratio)))
        ch, cw = max(8, min(h, ch)), max(8, min(w, cw))
        if zoom_in:
            y, x = self._around_object(rng, mask, ch, cw)
        else:
            y = int(rng.integers(0, h - ch + 1))
            x = int(rng.integers(0, w - cw + 1))
        photo = photo[y:y + ch, x:x + cw]
        mask = mask[y:y + ch, x:x + cw]
        if self.paste_p > 0 and donor is not None and rng.random() < self.paste_p:
            photo, mask = self._paste(rng, photo, mask, *donor())
        if not zoom_in and rng.random() < self.zoom_out_p:
            photo, mask = self._zoom_out(rng, photo, mask)
        img = cv2.resize(photo, (s, s), interpolation=cv2.INTER_LINEAR)
        m = cv2.resize(mask, (s, s), interpolation=cv2.INTER_LINEAR)
        if rng.random() < self.flip_p:
            img, m = img[:, ::-1], m[:, ::-1]
        return np.ascontiguousarray(img), np.ascontiguousarray(m)

    @staticmethod
    def _around_object(rng, mask, ch, cw):
        """Top-left corner of a ch x cw crop centred on a random point of the object's bounding box
        (of the whole photo when the mask is empty), kept inside the photo."""
        h, w = mask.shape
        ys, xs = np.nonzero(mask > 127)
        if len(ys) == 0:
            ys, xs = np.array([0, h - 1]), np.array([0, w - 1])
        cy = rng.uniform(ys.min(), ys.max() + 1)
        cx = rng.uniform(xs.min(), xs.max() + 1)
        y = int(np.clip(round(cy - ch / 2), 0, h - ch))
        x = int(np.clip(round(cx - cw / 2), 0, w - cw))
        return y, x

    def _paste(self, rng, photo, mask, d_photo, d_mask):
        """Copy-paste: the donor's object (cut to its mask's bounding box, scaled so its longer side
        is `paste_scale` of the view's shorter side, maybe mirrored) alpha-blended by its soft mask
        onto the view at a random place; the mask becomes the union of both objects."""
        ys, xs = np.nonzero(d_mask > 127)
        if len(ys) == 0:
            return photo, mask
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        obj, alpha = d_photo[y0:y1, x0:x1], d_mask[y0:y1, x0:x1]
        if rng.random() < 0.5:
            obj, alpha = obj[:, ::-1], alpha[:, ::-1]
        h, w = mask.shape
        k = rng.uniform(*self.paste_scale) * min(h, w) / max(obj.shape[:2])
        oh, ow = min(h, max(4, int(round(obj.shape[0] * k)))), min(w, max(4, int(round(obj.shape[1] * k))))
        obj = cv2.resize(np.ascontiguousarray(obj), (ow, oh), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
        alpha = cv2.resize(np.ascontiguousarray(alpha), (ow, oh), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
        top, left = int(rng.integers(0, h - oh + 1)), int(rng.integers(0, w - ow + 1))
        a = alpha.astype(np.float32)[..., None] / 255.0
        photo, mask = photo.copy(), mask.copy()
        region = photo[top:top + oh, left:left + ow].astype(np.float32)
        photo[top:top + oh, left:left + ow] = np.rint(a * obj + (1 - a) * region).astype(np.uint8)
        under = mask[top:top + oh, left:left + ow].astype(np.float32)
        mask[top:top + oh, left:left + ow] = np.rint(alpha + (1 - a[..., 0]) * under).astype(np.uint8)
        return photo, mask

    def _zoom_out(self, rng, photo, mask):
        """Pastes the crop smaller (factor z) into a canvas of the crop's size whose border is the
        crop's edge grown outwards (`self.border`) and blurred, so objects come out smaller, as in
        validation."""
        h, w = mask.shape
        z = rng.uniform(*self.zoom_out)
        ih, iw = max(4, int(round(h * z))), max(4, int(round(w * z)))
        small = cv2.resize(photo, (iw, ih), interpolation=cv2.INTER_AREA)
        small_m = cv2.resize(mask, (iw, ih), interpolation=cv2.INTER_AREA)
        top = int(rng.integers(0, h - ih + 1))
        left = int(rng.integers(0, w - iw + 1))
        bottom, right = h - ih - top, w - iw - left
        canvas = cv2.copyMakeBorder(small, top, bottom, left, right, self.border)
        sigma = max(2.0, 0.02 * max(h, w) * rng.uniform(1.0, 3.0))
        canvas = cv2.GaussianBlur(canvas, (0, 0), sigma)
        canvas[top:top + ih, left:left + iw] = small
        m = np.zeros((h, w), np.uint8)
        m[top:top + ih, left:left + iw] = small_m
        return canvas, m


def color_jitter(rng: np.random.Generator, batch: np.ndarray, strength=0.2) -> np.ndarray:
    """Mild per-image brightness, contrast and saturation jitter on float (N, H, W, 3) in [0, 1]."""
    n = batch.shape[0]
    b = rng.uniform(1 - strength, 1 + strength, (n, 1, 1, 1)).astype(np.float32)
    c = rng.uniform(1 - strength, 1 + strength, (n, 1, 1, 1)).astype(np.float32)
    sat = rng.uniform(1 - strength, 1 + strength, (n, 1, 1, 1)).astype(np.float32)
    x = batch * b
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    x = (x - mean) * c + mean
    grey = (x * np.array([0.299, 0.587, 0.114], np.float32)).sum(axis=3, keepdims=True)
    x = (x - grey) * sat + grey
    return np.clip(x, 0.0, 1.0)


class TrainBatches:
    """Endless shuffled training batches (NHWC float32 photos in [0, 1], NHW1 float masks in
    [0, 1]), produced on a background thread (OpenCV releases the GIL) to overlap with training."""

    def __init__(self, split: Split, batch_size=16, size=256, seed=0, prefetch=3, **aug):
        self.split, self.batch_size, self.size = split, batch_size, size
        self.aug = Augmenter(size=size, **aug)
        self.rng = np.random.default_rng(seed)
        self.q: queue.Queue = queue.Queue(maxsize=prefetch)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        n = len(self.split)
        while True:
            order = self.rng.permutation(n)
            for i in range(0, n - self.batch_size + 1, self.batch_size):
                idx = order[i:i + self.batch_size]
                imgs = np.empty((len(idx), self.size, self.size, 3), np.uint8)
                masks = np.empty((len(idx), self.size, self.size), np.uint8)
                for j, k in enumerate(idx):
                    photo, mask = self.split.pair(int(k))
                    imgs[j], masks[j] = self.aug(self.rng, photo, mask, donor=self._donor)
                x = color_jitter(self.rng, imgs.astype(np.float32) / 255.0)
                y = masks.astype(np.float32)[..., None] / 255.0
                self.q.put((x, y))

    def _donor(self):
        """A random other training pair, for copy-paste."""
        return self.split.pair(int(self.rng.integers(0, len(self.split))))

    def __iter__(self):
        while True:
            yield self.q.get()


if __name__ == "__main__":
    import time
    for name in ("val", "train"):
        t = time.time()
        split = load_split(name)
        fg = np.mean([split.pair(i)[1].mean() / 255 for i in range(len(split))])
        print(f"{name}: {len(split)} pairs, {split.flat_rgb.nbytes / 1e9:.2f} GB rgb, "
              f"mean foreground {fg:.3f}, loaded in {time.time() - t:.1f} s")
