"""Cut-out edges measured against a truth: composites whose alpha and foreground colour are known.

    .venv/bin/python Benchmarks/edges.py --lift .build/release/lift SHARD.tar [SHARD.tar ...] \
        [--limit N] [--qualities fast,balanced,accurate] [--rembg] [--rembg-matting] [--u2net-home DIR]

Each validation pair (photo, ground-truth mask; the tar shards of `Tools/README.md`'s data, e.g. the
ECSSD originals and the DUTS val500) becomes one composite with a known truth: photo and mask are
upsampled 4× (bilinear; the mask then cut at 0.5, a hard outline at sub-pixel precision), pasted
over a background (by turns another photo of the set, saturated green, saturated magenta), and
box-averaged back to the photo's size. So at every pixel the true alpha α (the share of the 4×4
block the subject covers, fractional along the outline) and the true premultiplied foreground αF
(the block's mean of mask × photo) are known. The composite is written as a PNG (no compression
loss) and given to each method.

For each method's cut-out (straight-alpha RGBA, alpha â and colour F̂), laid over white and over
black, against the truth laid over the same (`αF + (1-α)·C`):
- `outline`: mean absolute error in 8-bit levels over the outline band (pixels with 0 < α < 1,
  dilated by 1 % of the longer side, at least 3 px), over white and black averaged;
- `image`: the same over the whole composite;
- alpha `SAD` (Σ|â - α| / 1000 per image, the matting literature's unit) and `MSE` (× 1000);
- `opaque changed`: the share of pixels the cut-out keeps fully opaque (alpha 255) whose colour
  differs from the composite's: a cut-out must show the photo's own pixels there (must be 0).

Methods: Lift's default cut-out (`lift COMPOSITE -o OUT`, with `--quality Q` for each of
`--qualities`), the naive cut-out (the photo's colours under Lift's alpha: `--decontaminate off`),
pymatting's `estimate_foreground_ml` (Germer et al. 2020, what rembg's `-a` uses) on Lift's alpha,
and with `--rembg` rembg's own pipeline (`rembg.remove` with `u2netp`; `--rembg-matting` adds its
alpha matting `-a`), run from `--u2net-home` (a folder holding `u2netp.onnx`: rembg never downloads
then). Per method, the mean over composites with its standard error, per set; for Lift against
each peer, the paired difference of the outline error and its standard error.
"""
from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import peer_env

peer_env.use_peer_python(["numpy", "PIL", "scipy", "pymatting"])

import numpy as np
from PIL import Image
from scipy import ndimage

SCALE = 4
FLAT = {"green": (0, 255, 0), "magenta": (255, 0, 255)}


def read_pairs(shard: Path, limit: int | None) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(key, photo H×W×3 uint8, mask H×W uint8) for each pair in a shard, in key order."""
    members: dict[str, dict[str, bytes]] = {}
    with tarfile.open(shard) as tar:
        for member in tar:
            if not member.isfile():
                continue
            key, _, ext = member.name.rpartition(".")
            members.setdefault(key, {})[ext.lower()] = tar.extractfile(member).read()
    pairs = []
    for key in sorted(members):
        files = members[key]
        photo_bytes = files.get("jpg") or files.get("jpeg")
        if photo_bytes is None or "png" not in files:
            continue
        photo = np.asarray(Image.open(io.BytesIO(photo_bytes)).convert("RGB"))
        mask = np.asarray(Image.open(io.BytesIO(files["png"])).convert("L"))
        if mask.shape != photo.shape[:2]:
            continue
        pairs.append((Path(key).name, photo, mask))
        if limit and len(pairs) >= limit:
            break
    return pairs


def composite(photo: np.ndarray, mask: np.ndarray, background: np.ndarray | tuple[int, int, int]):
    """The composite (H×W×3 uint8), the true alpha α (H×W, 0…1) and the true premultiplied
    foreground αF (H×W×3, 0…255 floats)."""
    h, w = mask.shape
    big = (w * SCALE, h * SCALE)
    photo4 = np.asarray(Image.fromarray(photo).resize(big, Image.BILINEAR), dtype=np.float64)
    mask4 = (np.asarray(Image.fromarray(mask).resize(big, Image.BILINEAR), dtype=np.float64) >= 127.5).astype(np.float64)
    if isinstance(background, tuple):
        back4 = np.broadcast_to(np.array(background, dtype=np.float64), photo4.shape)
    else:
        back4 = np.asarray(Image.fromarray(background).resize(big, Image.BILINEAR), dtype=np.float64)
    m = mask4[..., None]
    mixed4 = m * photo4 + (1 - m) * back4

    def pool(a: np.ndarray) -> np.ndarray:
        return a.reshape(h, SCALE, w, SCALE, *a.shape[2:]).mean(axis=(1, 3))

    image = np.clip(np.rint(pool(mixed4)), 0, 255).astype(np.uint8)
    return image, pool(mask4), pool(m * photo4)


def band(alpha: np.ndarray) -> np.ndarray:
    """The outline band: fractional true alpha, dilated by 1 % of the longer side (≥ 3 px)."""
    radius = max(3, round(0.01 * max(alpha.shape)))
    edge = (alpha > 0) & (alpha < 1)
    y, x = np.ogrid[-radius:radius + 1, -radius:radius + 1]
    return ndimage.binary_dilation(edge, structure=(x * x + y * y) <= radius * radius)


def scores(cutout: np.ndarray, image: np.ndarray, alpha: np.ndarray, premultiplied: np.ndarray, outline: np.ndarray) -> dict:
    """The measures of one straight-alpha RGBA cut-out (H×W×4 uint8) against the truth."""
    a = cutout[..., 3].astype(np.float64) / 255
    shown = a[..., None] * cutout[..., :3].astype(np.float64)   # over black; over white adds (1-a)·255
    errors = []
    for backdrop in (0.0, 255.0):
        made = shown + (1 - a[..., None]) * backdrop
        truth = premultiplied + (1 - alpha[..., None]) * backdrop
        errors.append(np.abs(made - truth).mean(axis=2))
    error = (errors[0] + errors[1]) / 2
    opaque = cutout[..., 3] == 255
    changed = (cutout[..., :3] != image).any(axis=2) & opaque
    return {"outline": float(error[outline].mean()) if outline.any() else 0.0, "image": float(error.mean()),
            "sad": float(np.abs(a - alpha).sum() / 1000), "mse": float(((a - alpha) ** 2).mean() * 1000),
            "opaque changed": float(changed.sum() / max(1, opaque.sum()))}


def read_rgba(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGBA"))


def run_lift(binary: str, inputs: Path, outputs: Path, args: list[str]) -> float:
    """Cuts out every composite in `inputs` into `outputs` with one `lift` run; its wall time (s)."""
    outputs.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    subprocess.run([binary, str(inputs), "-o", str(outputs) + "/", "--quiet", "--force"] + args, check=True)
    return time.perf_counter() - started


def mean_se(values: list[float]) -> tuple[float, float]:
    v = np.asarray(values, dtype=np.float64)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0


def report(name: str, results: dict[str, list[dict]], reference: str) -> None:
    n = len(next(iter(results.values())))
    print(f"\n## {name}: {n} composites\n")
    print("| method | outline error | image error | alpha SAD | alpha MSE ×1e3 | opaque changed |")
    print("|---|---|---|---|---|---|")
    for method, rows in results.items():
        cells = []
        for key in ("outline", "image", "sad", "mse"):
            m, se = mean_se([r[key] for r in rows])
            cells.append(f"{m:.3f} ± {se:.3f}")
        changed = np.mean([r["opaque changed"] for r in rows]) * 100
        print(f"| {method} | " + " | ".join(cells) + f" | {changed:.3f} % |")
    print(f"\nPaired outline-error differences, `{reference}` minus each (negative: `{reference}` is better):\n")
    for method, rows in results.items():
        if method == reference:
            continue
        d = [a["outline"] - b["outline"] for a, b in zip(results[reference], rows)]
        m, se = mean_se(d)
        print(f"- vs {method}: {m:+.3f} ± {se:.3f} levels")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("shards", nargs="+", type=Path, help="tar shards of photo/mask pairs (one validation set each)")
    ap.add_argument("--lift", required=True, help="the lift binary (build with -c release)")
    ap.add_argument("--limit", type=int, default=None, help="pairs per shard (default: all)")
    ap.add_argument("--qualities", default="balanced", help="Lift quality levels to measure, comma-separated; the first is the default cut-out compared with the peers")
    ap.add_argument("--lift-args", default="", help="more lift options for every Lift run")
    ap.add_argument("--rembg", action="store_true", help="also rembg's own u2netp pipeline")
    ap.add_argument("--rembg-matting", action="store_true", help="also rembg's alpha matting (-a); slow")
    ap.add_argument("--u2net-home", type=Path, default=None, help="folder with rembg's u2netp.onnx (sets U2NET_HOME)")
    a = ap.parse_args()
    from pymatting import estimate_foreground_ml

    qualities = a.qualities.split(",")
    extra = a.lift_args.split()
    session = None
    if a.rembg or a.rembg_matting:
        if a.u2net_home:
            os.environ["U2NET_HOME"] = str(a.u2net_home.resolve())
        from rembg import new_session, remove
        session = new_session("u2netp")
    for shard in a.shards:
        pairs = read_pairs(shard, a.limit)
        if len(pairs) < 2:
            sys.exit(f"{shard}: fewer than two photo/mask pairs")
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            (work / "in").mkdir()
            truths = []
            for i, (key, photo, mask) in enumerate(pairs):
                kind = ("photo", "green", "magenta")[i % 3]
                background = pairs[(i + 1) % len(pairs)][1] if kind == "photo" else FLAT[kind]
                image, alpha, premultiplied = composite(photo, mask, background)
                Image.fromarray(image).save(work / "in" / f"{i:04d}.png")
                truths.append((image, alpha, premultiplied, band(alpha)))
            seconds = {}
            for quality in qualities:
                seconds[quality] = run_lift(a.lift, work / "in", work / quality, ["--quality", quality] + extra)
            run_lift(a.lift, work / "in", work / "naive", ["--quality", qualities[0], "--decontaminate", "off"] + extra)
            results: dict[str, list[dict]] = {f"lift {q}": [] for q in qualities}
            results.update({"naive (photo colours, Lift's alpha)": [], "pymatting ML (Lift's alpha)": []})
            if session is not None and a.rembg:
                results["rembg u2netp"] = []
            if session is not None and a.rembg_matting:
                results["rembg u2netp -a"] = []
            for i, (image, alpha, premultiplied, outline) in enumerate(truths):
                name = f"{i:04d}.cutout.png"
                for quality in qualities:
                    results[f"lift {quality}"].append(scores(read_rgba(work / quality / name), image, alpha, premultiplied, outline))
                naive = read_rgba(work / "naive" / name)
                results["naive (photo colours, Lift's alpha)"].append(scores(naive, image, alpha, premultiplied, outline))
                lift_alpha = naive[..., 3].astype(np.float64) / 255
                foreground = estimate_foreground_ml(image.astype(np.float64) / 255, lift_alpha)
                matted = np.dstack([np.clip(np.rint(foreground * 255), 0, 255).astype(np.uint8), naive[..., 3]])
                results["pymatting ML (Lift's alpha)"].append(scores(matted, image, alpha, premultiplied, outline))
                if "rembg u2netp" in results:
                    out = np.asarray(remove(Image.fromarray(image), session=session).convert("RGBA"))
                    results["rembg u2netp"].append(scores(out, image, alpha, premultiplied, outline))
                if "rembg u2netp -a" in results:
                    out = np.asarray(remove(Image.fromarray(image), session=session, alpha_matting=True).convert("RGBA"))
                    results["rembg u2netp -a"].append(scores(out, image, alpha, premultiplied, outline))
        report(f"{shard.name}", results, f"lift {qualities[0]}")
        print("\nLift's wall time for the set (one run, model loaded once): "
              + ", ".join(f"{q} {s:.1f} s" for q, s in seconds.items()))


if __name__ == "__main__":
    main()
