"""Packs DUTS-TR (with --extra also the DUTS-TE pairs outside the validation 500) small enough to travel to a lent GPU machine (the `device` tool sends the working
tree plus carried paths, 64 MiB in all per call, and the tracked tree alone is ~23 MiB).

Each photo is downscaled (area) to --side px on its longer side and stored as WebP (--quality),
its mask at the same size as lossless PNG; the pairs are split into --parts files of about equal
size, one folder each, so that each call of the device tool carries one folder:

  Tools/.pack/part-0/duts-tr.npz   keys, shapes (h, w), photo bytes + offsets, mask bytes + offsets
  Tools/.pack/part-1/duts-tr.npz   ...
  Tools/.pack/part-2/init.pt       with --init: the starting weights as float16, in the last part
                                   (the one carried by the training call itself)

`Tools/.pack/` is ignored by git: never commit it (DUTS is for research use; see PROVENANCE).
Read a pack with `load_pack` (decodes every pair into padded uint8 arrays, in parallel).

  .venv/bin/python -m liftpy.training.pack_duts --init Tools/checkpoints/l2/best.pt
"""
from __future__ import annotations

import argparse
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from liftpy.duts_data import load_split

REPO = Path(__file__).resolve().parents[2]
PACK_DIR = REPO / "Tools" / ".pack"


def encode_pair(photo: np.ndarray, mask: np.ndarray, side: int, quality: int):
    """Downscales a pair (RGB uint8 HWC, grey uint8 HW) to `side` on its longer side (never up)
    and encodes it: returns (photo WebP at `quality`, mask lossless PNG, (h, w) as stored)."""
    h, w = mask.shape
    s = min(1.0, side / max(h, w))
    if s < 1.0:
        size = (max(1, round(w * s)), max(1, round(h * s)))
        photo = cv2.resize(photo, size, interpolation=cv2.INTER_AREA)
        mask = cv2.resize(mask, size, interpolation=cv2.INTER_AREA)
    ok1, p = cv2.imencode(".webp", np.ascontiguousarray(photo[..., ::-1]), [cv2.IMWRITE_WEBP_QUALITY, quality])
    ok2, m = cv2.imencode(".png", mask, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not (ok1 and ok2):
        raise RuntimeError("OpenCV could not encode a pair")
    return p.tobytes(), m.tobytes(), mask.shape


def write_part(path: Path, keys, pairs, shapes):
    """One part: the encoded pairs concatenated, with offsets (no pickled objects)."""
    photos = [p for p, _ in pairs]
    masks = [m for _, m in pairs]

    def flat(blobs):
        offsets = np.concatenate([[0], np.cumsum([len(b) for b in blobs])]).astype(np.int64)
        return np.frombuffer(b"".join(blobs), np.uint8), offsets

    photo_bytes, photo_offsets = flat(photos)
    mask_bytes, mask_offsets = flat(masks)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, keys=np.array(keys), shapes=np.array(shapes, np.int64), photos=photo_bytes,
             photo_offsets=photo_offsets, masks=mask_bytes, mask_offsets=mask_offsets)
    os.replace(tmp, path)


def load_pack(folders):
    """Reads every `*/duts-tr.npz` under `folders` (a pack root or part folders) and decodes it.
    Returns (photos uint8 (N, S, S, 3), masks uint8 (N, S, S), shapes int64 (N, 2) = h, w, keys),
    each pair at the top-left of its S x S slot (S = the largest side in the pack) with
    its last row and column repeated into the rest, so bilinear sampling at the edges stays clean."""
    files = []
    for folder in folders:
        folder = Path(folder)
        files += sorted(folder.glob("duts-tr.npz")) + sorted(folder.glob("*/duts-tr.npz"))
    if not files:
        raise FileNotFoundError(f"no duts-tr.npz under {', '.join(map(str, folders))}")
    npz = [np.load(f, allow_pickle=False) for f in files]
    shapes = np.concatenate([z["shapes"] for z in npz])
    keys = [str(k) for z in npz for k in z["keys"]]
    s = int(shapes.max())
    n = len(keys)
    photos = np.empty((n, s, s, 3), np.uint8)
    masks = np.empty((n, s, s), np.uint8)

    def decode(job):
        p, i, k = job
        po, mo = p["photo_offsets"], p["mask_offsets"]
        img = cv2.imdecode(p["photos"][po[i]:po[i + 1]], cv2.IMREAD_COLOR)
        m = cv2.imdecode(p["masks"][mo[i]:mo[i + 1]], cv2.IMREAD_GRAYSCALE)
        if img is None or m is None or img.shape[:2] != m.shape or img.shape[0] > s or img.shape[1] > s:
            raise ValueError(f"pair {keys[k]}: cannot decode, or sizes differ / exceed {s}")
        h, w = m.shape
        photos[k] = cv2.copyMakeBorder(img[..., ::-1], 0, s - h, 0, s - w, cv2.BORDER_REPLICATE)
        masks[k] = cv2.copyMakeBorder(m, 0, s - h, 0, s - w, cv2.BORDER_REPLICATE)

    # The arrays inside an NpzFile are read lazily: load each part's four blobs once, up front.
    parts = [{name: z[name] for name in ("photos", "photo_offsets", "masks", "mask_offsets")} for z in npz]
    jobs, k = [], 0
    for p in parts:
        for i in range(len(p["photo_offsets"]) - 1):
            jobs.append((p, i, k))
            k += 1
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        list(pool.map(decode, jobs, chunksize=64))
    return photos, masks, shapes, keys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--side", type=int, default=224, help="longer side of the packed pairs, px")
    ap.add_argument("--quality", type=int, default=60, help="WebP quality of the photos")
    ap.add_argument("--parts", type=int, default=2, help="files to split the pack into (one per device call)")
    ap.add_argument("--init", help="a checkpoint (.pt with an 'ema' state dict) to store as float16 init.pt")
    ap.add_argument("--out", default=str(PACK_DIR))
    ap.add_argument("--limit", type=int, default=0, help="pack only the first N pairs of each split (for a quick test)")
    ap.add_argument("--extra", action="store_true",
                    help="also pack the 4,019 DUTS-TE pairs outside the validation 500 (the trainer's `train_extra`)")
    a = ap.parse_args()
    keys, results = [], []
    for name in ("train", "extra") if a.extra else ("train",):
        split = load_split(name)
        n = min(len(split), a.limit) if a.limit else len(split)
        with ThreadPoolExecutor(os.cpu_count()) as pool:
            results += pool.map(lambda k: encode_pair(*split.pair(k), a.side, a.quality), range(n), chunksize=64)
        keys += split.keys[:n]
    n = len(keys)
    pairs = [(p, m) for p, m, _ in results]
    shapes = [shape for _, _, shape in results]
    sizes = np.array([len(p) + len(m) for p, m in pairs])
    bounds = np.searchsorted(np.cumsum(sizes), np.arange(1, a.parts) * sizes.sum() / a.parts)
    bounds = [0, *bounds.tolist(), n]
    out = Path(a.out)
    for j in range(a.parts):
        lo, hi = bounds[j], bounds[j + 1]
        path = out / f"part-{j}" / "duts-tr.npz"
        write_part(path, keys[lo:hi], pairs[lo:hi], shapes[lo:hi])
        print(f"{path}: {hi - lo} pairs, {path.stat().st_size / 2**20:.1f} MiB")
    if a.init:
        import torch
        ckpt = torch.load(a.init, map_location="cpu", weights_only=False)
        half = {k: v.half() if v.is_floating_point() else v for k, v in ckpt["ema"].items()}
        path = out / f"part-{a.parts - 1}" / "init.pt"
        torch.save({"ema": half, "source": str(a.init), "step": ckpt.get("step")}, path)
        print(f"{path}: {path.stat().st_size / 2**20:.1f} MiB (from {a.init}, step {ckpt.get('step')})")


if __name__ == "__main__":
    main()
