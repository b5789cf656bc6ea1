"""On-the-fly training samples for instance heads: touching, overlapping and separate DUTS-TR
objects pasted on backgrounds cut from other DUTS-TR photos, mixed with untouched photos.

`SynthInstances(seed=S)[i]` is one sample, the same for the same (S, i) on any machine with the
pinned packages (its random draws come from numpy's Generator seeded with [S, i]); any index is
valid, so a training run can use index = step * batch + j and never repeat. It is a map-style
dataset (`__len__`, `__getitem__`), so `torch.utils.data.DataLoader` takes it as it is; each
worker shares the decoded splits with the parent (fork).

A sample (dict of numpy arrays; `size` x `size`, the photo stretched to a square as Lift's runtime
stretches it):
  image     uint8 (S, S, 3) RGB
  fg        float32 (S, S) soft union of the objects, 0..1 (the subject model's target)
  ids       uint8 (S, S) instance ids, 0 background, 1..K in paste order (later pastes cover earlier)
  centre    float32 (S, S) Gaussian (sigma px) at each instance's centre of mass, max over instances
  offset    float32 (2, S, S) (dy, dx) from each instance pixel to its centre, in pixels of this map
  boundary  uint8 (S, S) 1 within r px of two different instances
  count     int K;  composite: 1 for a composite, 0 for an untouched photo
  solidity  float32: an untouched photo's region over its convex hull (sources.solidity), 1 for a composite
(targets.py says exactly how the targets are made; composite.py how the composites are.)

What a sample is, drawn per index:
  - with probability --photo-p (0.2) an untouched DUTS-TR photo whose ground truth is one object
    (sources.is_single_object), with the subject trainer's views (liftpy.duts_data.Augmenter:
    crop, zoom-out, mirror), one instance: one object stays one; with probability --photo-paste-p
    (default 0) of these, the photo at the composites' canvas size with 1 or 2 more objects (copies
    of its own, or DUTS-TR foregrounds) laid out and pasted against its untouched object
    (composite.compose_on_photo; K 2 or 3, PASTE_COUNTS), so that a real-looking photo is not
    always one object (a sample like a composite; if nothing fits, the plain photo);
  - else a composite on a canvas of aspect 1, 4:3, 3:4, 3:2 or 2:3 (longer side --size), stretched
    to the square: K = 1, 2, 3, 4 objects with probabilities --counts (0.15 0.35 0.3 0.2); for K >= 2
    copies of one foreground with probability --same-p (0.4), else K different ones; each object
    after the first touches (0.35), overlaps (0.35), keeps a gap from (0.2) a random earlier one, or
    (0.1, different objects only) occludes the first so that its visible part falls into two pieces
    of one instance (the first object is then drawn from the elongated foregrounds, elongation >= 2);
  - both then get the same degradations (degrade.py: colour jitter, blur 25 %, noise 40 %,
    JPEG quality 45-95 60 %), so that neither the seams nor the processing tells them apart.

  .venv/bin/python -m liftpy.instances.synth --bench 500            # samples/s on one core
  .venv/bin/python -m liftpy.instances.synth --preview Tools/instances/.work/preview.png
  .venv/bin/python -m liftpy.instances.synth --stats 2000           # how often each case comes out
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from liftpy.duts_data import Augmenter
from liftpy.instances.composite import Params, compose, compose_on_photo
from liftpy.instances.degrade import Degradation, degrade
from liftpy.instances.sources import SourceBank
from liftpy.instances.targets import instance_targets, pair_relations, visible_pieces

ASPECTS = (1.0, 4 / 3, 3 / 4, 3 / 2, 2 / 3)  # canvas width / height
RELATION_P = {"touch": 0.35, "overlap": 0.35, "gap": 0.2, "split": 0.1}
ELONGATED = 2.0
PASTE_COUNTS = np.array([0.0, 0.65, 0.35])  # K of a photo with objects pasted against its own: 2 or 3


class SynthInstances:
    """Seeded instance samples (module docstring). `bank`: a sources.SourceBank to share between
    datasets (default: built from `splits`, ~20 s for DUTS-TR)."""

    def __init__(self, seed=0, length=1_000_000, size=256, splits=("train",), photo_p=0.2, same_p=0.4,
                 counts=(0.15, 0.35, 0.3, 0.2), relation_p=None, sigma=4.0, boundary_r=2,
                 params: Params | None = None, degradation: Degradation | None = None,
                 bank: SourceBank | None = None, photo_paste_p=0.0, fg_weights=None):
        self.seed, self.length, self.size = seed, length, size
        self.photo_paste_p = photo_paste_p
        self.fg_weights = fg_weights  # None: every foreground of the bank equally often; else its probabilities
        self.bank = bank if bank is not None else SourceBank(splits)
        self.photo_p, self.same_p = photo_p, same_p
        self.counts = np.asarray(counts, np.float64) / np.sum(counts)
        rp = relation_p or RELATION_P
        self.relations = list(rp)
        self.relation_p = np.asarray([rp[k] for k in self.relations], np.float64)
        self.relation_p /= self.relation_p.sum()
        self.sigma, self.r = sigma, boundary_r
        self.params = params or Params()
        self.degradation = degradation or Degradation()
        self.views = Augmenter(size=size)
        self.elongated = np.nonzero((self.bank.fg[:, 6] >= ELONGATED) & (self.bank.fg[:, 5] < 0))[0]

    def relation_weights(self) -> str:
        """The relations' shares as a log line: `touch 0.35, overlap 0.35, gap 0.2, split 0.1`."""
        return ", ".join(f"{k} {v:.2g}" for k, v in zip(self.relations, self.relation_p))

    def __len__(self):
        return self.length

    def spec(self, rng, counts=None):
        """What composite to make: count, same, foregrounds, relations (K drawn from `counts`,
        default the dataset's)."""
        counts = self.counts if counts is None else counts
        K = int(rng.choice(len(counts), p=counts)) + 1
        same = K > 1 and rng.random() < self.same_p
        relations = [self.relations[int(rng.choice(len(self.relations), p=self.relation_p))] for _ in range(K - 1)]
        if same:
            relations = ["overlap" if r == "split" else r for r in relations]
        n_fg = len(self.bank.fg)
        fgs = [int(v) for v in rng.choice(n_fg, size=1 if same else K, replace=False, p=self.fg_weights)]
        if "split" in relations:
            fgs[0] = int(self.elongated[rng.integers(len(self.elongated))])
        return {"count": K, "same": same, "foregrounds": fgs, "relations": relations}

    def __getitem__(self, index):
        rng = np.random.default_rng([self.seed, int(index)])
        s = self.size
        if rng.random() < self.photo_p:
            j = int(rng.integers(len(self.bank.single)))
            photo, mask, _ = self.bank.photo(j)
            solid = float(self.bank.single_solidity[j])
            if self.photo_paste_p > 0 and rng.random() < self.photo_paste_p:
                f = s / max(mask.shape)  # on a canvas of the composites' size
                small = (max(1, round(mask.shape[1] * f)), max(1, round(mask.shape[0] * f)))
                c = compose_on_photo(rng, self.bank, cv2.resize(photo, small, interpolation=cv2.INTER_AREA),
                                     cv2.resize(mask, small, interpolation=cv2.INTER_AREA),
                                     self.spec(rng, counts=PASTE_COUNTS), self.params)
                if c is not None:
                    return self.sample(degrade(rng, c.image, self.degradation), c)
            img, m = self.views(rng, photo, mask)
            img = degrade(rng, img, self.degradation)
            fg = m.astype(np.float32) / 255
            ids = (m >= 128).astype(np.uint8)
            count = int(ids.any())
        else:
            a = ASPECTS[int(rng.integers(len(ASPECTS)))]
            H, W = (s, int(round(s * a))) if a <= 1 else (int(round(s / a)), s)
            c = compose(rng, self.bank, self.spec(rng), H, W, self.params)
            return self.sample(degrade(rng, c.image, self.degradation), c)
        return self.targets(img, fg, ids, count, 0, solid)

    def sample(self, image, c):
        """A composite's sample: its degraded image, union and ids stretched to the square."""
        s = self.size
        img = cv2.resize(image, (s, s), interpolation=cv2.INTER_LINEAR)
        fg = cv2.resize(c.union, (s, s), interpolation=cv2.INTER_LINEAR)
        ids = cv2.resize(c.ids, (s, s), interpolation=cv2.INTER_NEAREST)
        return self.targets(img, fg, ids, len(c.keys) - 1, 1, 1.0)

    def targets(self, img, fg, ids, count, composite, solid):
        centre, offset, boundary = instance_targets(ids, count, self.sigma, self.r)
        return {"image": img, "fg": fg, "ids": ids, "centre": centre, "offset": offset,
                "boundary": boundary, "count": count, "composite": composite, "solidity": np.float32(solid)}

    def describe(self, index):
        """The composite behind index (None for a photo): its spec, what was placed, and the measured
        pair relations at canvas resolution. For statistics and checks, not for training."""
        rng = np.random.default_rng([self.seed, int(index)])
        if rng.random() < self.photo_p:
            return None
        a = ASPECTS[int(rng.integers(len(ASPECTS)))]
        H, W = (self.size, int(round(self.size * a))) if a <= 1 else (int(round(self.size / a)), self.size)
        spec = self.spec(rng)
        c = compose(rng, self.bank, spec, H, W, self.params)
        return spec, c, pair_relations(c.ids, c.amodal)


def loader(dataset: SynthInstances, batch_size=16, workers=2, start=0):
    """A torch DataLoader over indices start, start + 1, ... in order (deterministic whatever the
    worker count); batches are dicts of tensors (image uint8 NHWC, ...)."""
    import torch
    from torch.utils.data import DataLoader
    indices = range(start, len(dataset))
    return DataLoader(torch.utils.data.Subset(dataset, indices), batch_size=batch_size, shuffle=False,
                      num_workers=workers, persistent_workers=workers > 0, drop_last=True)


def _colour_ids(ids):
    palette = np.array([[0, 0, 0], [230, 25, 75], [60, 180, 75], [255, 225, 25], [0, 130, 200],
                        [245, 130, 48], [145, 30, 180], [70, 240, 240], [240, 50, 230]], np.uint8)
    return palette[np.minimum(ids, len(palette) - 1)]


def preview(ds: SynthInstances, path: Path, first: int, n: int):
    """A sheet of n samples: photo | ids | centre heatmap + boundary | offset magnitude."""
    rows = []
    for i in range(first, first + n):
        smp = ds[i]
        img = smp["image"]
        ids = _colour_ids(smp["ids"])
        heat = np.repeat((smp["centre"] * 255).astype(np.uint8)[..., None], 3, axis=2)
        heat[smp["boundary"] > 0] = (255, 0, 255)
        mag = np.hypot(*smp["offset"])
        mag = np.repeat((255 * mag / max(1.0, mag.max())).astype(np.uint8)[..., None], 3, axis=2)
        rows.append(np.concatenate([img, ids, heat, mag], axis=1))
    sheet = np.concatenate(rows, axis=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), sheet[..., ::-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--splits", default="train", help="DUTS splits to draw from (liftpy.duts_data.SPLITS), comma-separated")
    ap.add_argument("--photo-p", type=float, default=0.2)
    ap.add_argument("--same-p", type=float, default=0.4)
    ap.add_argument("--photo-paste-p", type=float, default=0.0)
    ap.add_argument("--sigma", type=float, default=4.0)
    ap.add_argument("--boundary-r", type=int, default=2)
    ap.add_argument("--bench", type=int, default=0, help="time this many samples on one core")
    ap.add_argument("--preview", help="write a PNG sheet of samples here")
    ap.add_argument("--first", type=int, default=0, help="--preview: first index")
    ap.add_argument("--count", type=int, default=12, help="--preview: how many samples")
    ap.add_argument("--stats", type=int, default=0, help="describe this many samples: counts, relations, splits")
    ap.add_argument("--check", action="store_true", help="make samples 0-19 twice and compare (determinism)")
    a = ap.parse_args()
    cv2.setNumThreads(1)
    t = time.time()
    ds = SynthInstances(seed=a.seed, size=a.size, splits=tuple(a.splits.split(",")), photo_p=a.photo_p,
                        same_p=a.same_p, sigma=a.sigma, boundary_r=a.boundary_r, photo_paste_p=a.photo_paste_p)
    print(f"bank: {ds.bank.summary()}, {len(ds.elongated)} elongated; built in {time.time() - t:.1f} s")
    if a.check:
        for i in range(20):
            x, y = ds[i], ds[i]
            assert all(np.array_equal(x[k], y[k]) for k in x), f"sample {i} differs"
        print("samples 0-19: identical when made twice")
    if a.bench:
        ds[0]
        t = time.process_time()
        w = time.time()
        for i in range(a.bench):
            ds[i]
        cpu, wall = time.process_time() - t, time.time() - w
        print(f"{a.bench} samples at {a.size}²: {a.bench / cpu:.0f} samples/s of CPU time "
              f"({a.bench / wall:.0f}/s wall), {1000 * cpu / a.bench:.2f} ms each")
    if a.stats:
        from collections import Counter
        kinds, rels, split_ok, asked, placed = Counter(), Counter(), 0, 0, Counter()
        for i in range(a.stats):
            d = ds.describe(i)
            if d is None:
                kinds["photo"] += 1
                continue
            spec, c, pairs = d
            K = len(c.keys) - 1
            kinds[f"K={K}"] += 1
            placed["asked"] += spec["count"]
            placed["placed"] += K
            for _, _, rel, adj in pairs:
                rels[rel + (" adjacent" if adj else "")] += 1
            if "split" in spec["relations"]:
                asked += 1
                split_ok += visible_pieces(c.ids, 1) >= 2
        print("samples:", dict(sorted(kinds.items())))
        print(f"objects placed / asked: {placed['placed']} / {placed['asked']}")
        print("measured pair relations:", dict(rels))
        print(f"occluded-into-two-pieces asked {asked}, first object visible in >= 2 pieces: {split_ok}")
    if a.preview:
        preview(ds, Path(a.preview), a.first, a.count)
        print(f"wrote {a.preview}")


if __name__ == "__main__":
    main()
