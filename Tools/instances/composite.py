"""Pastes foregrounds onto a background so that they touch, overlap, keep a gap, or so that one
occludes another and cuts it into two visible pieces; then hides the paste.

`compose(rng, bank, spec, H, W, params)` makes one composite on an H x W canvas:
  1. a background: a random crop of one photo's object-free region (sources.background_rect),
     mirrored at random, resized to the canvas;
  2. the objects: one foreground copied K times with small jitter (scale x0.9-1.1, mirror,
     per-channel gain +-6 %: the "three cups" case) or K different foregrounds (scale x0.75-1.25);
     the longer side of each is `size` x the canvas's shorter side / sqrt(K); a foreground cut by
     one photo side is pasted flush against that canvas side;
  3. the layout, in paste order: the first object at random, each next one against a random
     earlier one (its partner) along a random direction (along the canvas side for a flush object),
     at the distance that gives the requested relation: `touch` (the nearest position without
     overlapping pixels: the masks are adjacent), `overlap` (covers `overlap` of the smaller mask),
     `gap` (the touching position moved `gap` x the object's size further out) or `split` (centred
     on the partner's long axis so that the partner's visible part falls into two pieces); a
     placement that leaves any object under `min_visible` of its area visible, or mostly off the
     canvas, is drawn again (at most `tries` times, then the object is left out);
  4. hiding the seams: each object's colour moved part of the way to the background's mean,
     its alpha feathered, a soft contact shadow (sometimes); the caller then degrades the whole
     image (degrade.py: colour jitter, blur, noise, JPEG re-compression), as it does the untouched
     photos mixed into training.
The instance id map follows occlusion: a pixel belongs to the object with the largest visible alpha
(its alpha times the transparency of everything pasted later) where the union alpha is >= 0.5.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from liftpy.instances.sources import largest_component, object_alpha

RELATIONS = ("touch", "overlap", "gap", "split")  # what `spec["relations"]` may ask for


@dataclass
class Params:
    """Knobs of the composites (defaults: training at 256 px)."""
    size: tuple = (0.45, 0.85)       # object's longer side / canvas's shorter side, for K = 1 (/ sqrt(K))
    max_upscale: float = 1.6         # never enlarge a foreground more than this
    same_jitter: float = 0.10        # copies of one object: scale x(1 +- this)
    diff_jitter: float = 0.25        # different objects: scale x(1 +- this)
    overlap: tuple = (0.08, 0.35)    # overlap target, share of the smaller mask
    gap: tuple = (0.04, 0.25)        # gap target, share of the object's sqrt(area) ...
    min_gap: float = 3.0             # ... and at least this many px
    harmonise: tuple = (0.0, 0.35)   # share of the way each object's mean colour moves to the background's
    feather: tuple = (0.0, 1.2)      # Gaussian sigma (px) of the alpha's edge
    shadow_p: float = 0.3            # chance of soft contact shadows under the objects
    min_visible: float = 0.4         # every object keeps this share of its in-canvas area visible
    min_area: float = 0.004          # ... and this share of the canvas
    min_in_canvas: float = 0.7       # share of an object (not cut by a side) that must lie on the canvas
    split_piece: float = 0.1         # `split`: each visible piece >= this share of the partner's area
    split_size: tuple = (0.35, 0.7)  # `split`: occluder's longer side / the first object's
    variety: float = 0.0             # each foreground's new look, 0-1 (0: none; training only, see _new_look)
    tries: int = 10


@dataclass
class Piece:
    """One object on the canvas: colour and alpha of its crop, top-left corner (may lie off the canvas)."""
    rgb: np.ndarray     # float32 (h, w, 3), 0-255
    alpha: np.ndarray   # float32 (h, w), 0-1
    side: int           # canvas side it is flush against (sources.SIDES), or -1
    key: str
    y: int = 0
    x: int = 0
    hard: np.ndarray = field(init=False)

    def __post_init__(self):
        self.hard = self.alpha >= 0.5
        ys, xs = np.nonzero(self.hard)
        self.centroid = (float(ys.mean()), float(xs.mean())) if len(ys) else (self.alpha.shape[0] / 2, self.alpha.shape[1] / 2)
        self.area = int(len(ys))

    @property
    def shape(self):
        return self.alpha.shape


@dataclass
class Composite:
    image: np.ndarray        # uint8 (H, W, 3), before `degrade`
    union: np.ndarray        # float32 (H, W): soft union of the objects' alphas
    ids: np.ndarray          # uint8 (H, W): 0 background, 1..K in paste order
    amodal: list             # per instance, bool (H, W): its whole mask, hidden parts included
    relations: list          # per added object: (index, partner index, relation asked for and placed)
    keys: list               # source keys: background first, then each object's


def _window(H, W, y, x, h, w):
    """Canvas and crop slices of a crop of h x w at (y, x), clipped to the canvas (None if outside)."""
    y0, y1, x0, x1 = max(0, y), min(H, y + h), max(0, x), min(W, x + w)
    if y0 >= y1 or x0 >= x1:
        return None
    return (slice(y0, y1), slice(x0, x1)), (slice(y0 - y, y1 - y), slice(x0 - x, x1 - x))


def _overlap(a: Piece, b: Piece, by, bx, H, W) -> int:
    """Pixels of the canvas where both hard masks lie, with b at (by, bx)."""
    y0, y1 = max(a.y, by, 0), min(a.y + a.shape[0], by + b.shape[0], H)
    x0, x1 = max(a.x, bx, 0), min(a.x + a.shape[1], bx + b.shape[1], W)
    if y0 >= y1 or x0 >= x1:
        return 0
    return int(np.count_nonzero(a.hard[y0 - a.y:y1 - a.y, x0 - a.x:x1 - a.x] & b.hard[y0 - by:y1 - by, x0 - bx:x1 - bx]))


def _resize(img, s_y, s_x):
    h, w = img.shape[:2]
    nh, nw = max(2, int(round(h * s_y))), max(2, int(round(w * s_x)))
    interp = cv2.INTER_AREA if s_y * s_x < 1 else cv2.INTER_LINEAR
    return cv2.resize(img, (nw, nh), interpolation=interp)


def background(rng, bank, H, W, exclude=()):
    """A canvas-sized background: a crop of a random object-free region (mirrored half of the time),
    as float32 0-255, and its key. Regions of photos named in `exclude` are not used."""
    for _ in range(50):
        region, key = bank.background(int(rng.integers(len(bank.bg))))
        if key not in exclude:
            break
    rh, rw = region.shape[:2]
    # the largest crop of the canvas's aspect (stretched by up to 15 % either way), 60-100 % of it
    aspect = (W / H) * np.exp(rng.uniform(np.log(0.87), np.log(1.15)))
    ch, cw = (rh, rh * aspect) if rh * aspect <= rw else (rw / aspect, rw)
    k = np.sqrt(rng.uniform(0.6, 1.0))
    ch, cw = max(8, int(ch * k)), max(8, int(cw * k))
    y, x = int(rng.integers(0, rh - ch + 1)), int(rng.integers(0, rw - cw + 1))
    crop = region[y:y + ch, x:x + cw]
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    interp = cv2.INTER_AREA if ch > H else cv2.INTER_LINEAR
    return cv2.resize(np.ascontiguousarray(crop), (W, H), interpolation=interp).astype(np.float32), key


def _flip_side(side):
    return {2: 3, 3: 2}.get(side, side)


def _new_look(rng, variety: float):
    """(aspect, colour) for one foreground at `variety` v: its height x aspect and width / aspect,
    aspect = exp(U(-0.25 v, 0.25 v)), and a 3x3 matrix for its RGB (rows out, columns in) that turns
    the hue by U(-180 v, 180 v) degrees about the grey axis, scales saturation by exp(U(-0.5 v, 0.5 v))
    and brightness by exp(U(-0.3 v, 0.3 v)). Made so that a network trained on a few thousand
    objects could not tell instances apart by having seen each object before (it changed little: the
    overlap cues' gap is mostly shape, docs/decisions/0006-what-the-instance-heads-tried.md)."""
    aspect = float(np.exp(rng.uniform(-0.25, 0.25) * variety))
    angle = np.radians(rng.uniform(-180, 180) * variety)
    sat = float(np.exp(rng.uniform(-0.5, 0.5) * variety))
    gain = float(np.exp(rng.uniform(-0.3, 0.3) * variety))
    grey = np.full((3, 3), 1 / 3)
    u = np.ones(3) / np.sqrt(3)  # Rodrigues' rotation about the grey axis
    cross = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    turn = np.cos(angle) * np.eye(3) + np.sin(angle) * cross + (1 - np.cos(angle)) * np.outer(u, u)
    colour = gain * (grey + sat * (turn - grey))
    return aspect, colour.astype(np.float32)


def _prepare(rng, bank, spec, H, W, p: Params):
    """The K pieces, scaled, mirrored and jittered, before harmonising and feathering."""
    K = spec["count"]
    short = min(H, W)
    base = rng.uniform(*p.size) * short / np.sqrt(K)
    if spec["same"]:
        j = spec["foregrounds"][0]
        rgb, alpha, side, key = bank.foreground(j)
        sources = [(rgb, alpha, side, key)] * K
        jitter = p.same_jitter
        first_flip = rng.random() < 0.5
    else:
        sources = [bank.foreground(j) for j in spec["foregrounds"]]
        jitter = p.diff_jitter
    pieces = []
    first_long = 0.0
    looks = {}  # foreground key -> _new_look (copies of one object keep one look)
    for n, (rgb, alpha, side, key) in enumerate(sources):
        h, w = alpha.shape
        s = base / max(h, w) * rng.uniform(1 - jitter, 1 + jitter)
        if spec["same"] and n == 0:
            s0 = s
        if spec["same"]:
            s = s0 * rng.uniform(1 - jitter, 1 + jitter)
        if n and spec["relations"][n - 1] == "split":  # an occluder smaller than what it cuts in two
            s = rng.uniform(*p.split_size) * first_long / max(h, w)
        s = max(s, np.sqrt(2 * p.min_area * H * W / max(float(alpha.sum()), 1.0)))  # not too small to keep
        s = min(s, p.max_upscale, 0.95 * H / h, 0.95 * W / w)
        if n == 0:
            first_long = s * max(h, w)
        if p.variety > 0 and key not in looks:
            looks[key] = _new_look(rng, p.variety)
        aspect, colour = looks.get(key, (1.0, None))
        s_y, s_x = s * aspect, s / aspect
        if aspect != 1.0:  # the stretch keeps the piece on the canvas
            s_y, s_x = min(s_y, 0.95 * H / h), min(s_x, 0.95 * W / w)
        r = _resize(rgb, s_y, s_x).astype(np.float32)
        a = _resize(alpha, s_y, s_x)
        if colour is not None:
            r = np.clip(r @ colour.T, 0, 255)
        flip = (first_flip != (rng.random() < 0.3)) if spec["same"] else rng.random() < 0.5
        if flip:
            r, a, side = r[:, ::-1], a[:, ::-1], _flip_side(side)
        if spec["same"]:
            r = r * rng.uniform(1 - 0.06, 1 + 0.06, 3).astype(np.float32)
        pieces.append(Piece(np.ascontiguousarray(r), np.ascontiguousarray(a), side, key))
    return pieces


def _flush_position(piece: Piece, H, W, along: float):
    """Top-left of a flush piece whose centroid sits at `along` on its canvas side."""
    h, w = piece.shape
    if piece.side == 0:
        return 0, int(round(along - piece.centroid[1]))
    if piece.side == 1:
        return H - h, int(round(along - piece.centroid[1]))
    if piece.side == 2:
        return int(round(along - piece.centroid[0])), 0
    return int(round(along - piece.centroid[0])), W - w


def _first_position(rng, piece: Piece, H, W):
    h, w = piece.shape
    if piece.side >= 0:
        length = W if piece.side in (0, 1) else H
        extent = w if piece.side in (0, 1) else h
        c = piece.centroid[1] if piece.side in (0, 1) else piece.centroid[0]
        return _flush_position(piece, H, W, rng.uniform(c, max(c, length - extent + c)))
    return int(rng.integers(0, max(1, H - h + 1))), int(rng.integers(0, max(1, W - w + 1)))


def _along(rng, partner: Piece, new: Piece, H, W):
    """Position function t -> top-left of `new` moved t px from `partner`'s centroid along a random
    direction (along the canvas side when `new` is flush against one)."""
    cy, cx = partner.y + partner.centroid[0], partner.x + partner.centroid[1]
    if new.side >= 0:
        sign = 1 if rng.random() < 0.5 else -1
        base = cx if new.side in (0, 1) else cy
        return lambda t: _flush_position(new, H, W, base + sign * t)
    a = rng.uniform(0, 2 * np.pi)
    dy, dx = np.sin(a), np.cos(a)
    gy, gx = new.centroid
    return lambda t: (int(round(cy + t * dy - gy)), int(round(cx + t * dx - gx)))


def _solve(partner: Piece, new: Piece, at, target: int, H, W):
    """The smallest t (px, binary search) at which `new` overlaps `partner` by <= target pixels, or
    None when it already does so at t = 0 (no contact along this line)."""
    def ov(t):
        y, x = at(t)
        return _overlap(partner, new, y, x, H, W)
    if ov(0) <= target:
        return None
    lo, hi = 0, int(np.hypot(*partner.shape) / 2 + np.hypot(*new.shape) / 2) + 2
    if ov(hi) > target:
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ov(mid) > target:
            lo = mid
        else:
            hi = mid
    return hi


def _split_positions(rng, partner: Piece, new: Piece, n):
    """Candidate top-lefts for `new` centred on points of the partner's long axis near its middle."""
    m = cv2.moments(partner.hard.astype(np.uint8), binaryImage=True)
    theta = 0.5 * np.arctan2(2 * m["mu11"], m["mu20"] - m["mu02"])  # long axis angle (x towards y)
    spread = np.sqrt(max((m["mu20"] + m["mu02"]) / max(m["m00"], 1), 1.0))
    cy, cx = partner.y + partner.centroid[0], partner.x + partner.centroid[1]
    gy, gx = new.centroid
    out = []
    for _ in range(n):
        u, v = rng.uniform(-0.8, 0.8) * spread, rng.uniform(-0.15, 0.15) * spread
        py = cy + u * np.sin(theta) + v * np.cos(theta)
        px = cx + u * np.cos(theta) - v * np.sin(theta)
        out.append((int(round(py - gy)), int(round(px - gx))))
    return out


def _pieces_after(partner: Piece, new: Piece, y, x, p: Params) -> bool:
    """`split`: does `new` at (y, x) cut the partner's visible mask into >= 2 sizeable pieces?"""
    vis = partner.hard.copy()
    hh, ww = vis.shape
    win = _window(hh, ww, y - partner.y, x - partner.x, *new.shape)
    if win is None:
        return False
    (sy, sx), (ny, nx) = win
    vis[sy, sx] &= ~new.hard[ny, nx]
    n, _, stats, _ = cv2.connectedComponentsWithStats(vis.astype(np.uint8), connectivity=8)
    return int((stats[1:, cv2.CC_STAT_AREA] >= p.split_piece * partner.area).sum()) >= 2


class _Owners:
    """The top-most piece at each canvas pixel (hard masks), to check visibility while laying out."""

    def __init__(self, H, W):
        self.H, self.W = H, W
        self.top = np.full((H, W), -1, np.int8)
        self.in_canvas = []

    def with_piece(self, piece: Piece, index: int):
        top = self.top.copy()
        win = _window(self.H, self.W, piece.y, piece.x, *piece.shape)
        inside = 0
        if win is not None:
            (cy, cx), (py, px) = win
            m = piece.hard[py, px]
            top[cy, cx][m] = index
            inside = int(np.count_nonzero(m))
        return top, inside

    def acceptable(self, top, in_canvas, pieces, p: Params) -> bool:
        counts = np.bincount(top.ravel() + 1, minlength=len(pieces) + 1)[1:]
        for i, piece in enumerate(pieces):
            if piece.side < 0 and in_canvas[i] < p.min_in_canvas * piece.area:
                return False
            if counts[i] < max(p.min_visible * in_canvas[i], p.min_area * self.H * self.W):
                return False
        return True


def layout(rng, pieces, relations, H, W, p: Params, first_fixed=False):
    """Places pieces[0] at random (where it is with `first_fixed`), then each next piece against a
    random earlier one with the relation asked for (`relations[k - 1]` for piece k; `split` uses the
    first placed piece as partner). A piece that cannot be placed is left out (the first: the next
    one starts the layout). Returns the placed pieces and, per placed piece after the first, (index,
    partner index, relation)."""
    owners = _Owners(H, W)
    placed, done = [], []
    in_canvas = []
    for k, piece in enumerate(pieces):
        ok = False
        for attempt in range(p.tries if placed else 3 * p.tries):
            if not placed:
                if not (first_fixed and k == 0):
                    piece.y, piece.x = _first_position(rng, piece, H, W)
                partner_i, rel = -1, None
            else:
                rel = relations[k - 1]
                partner_i = 0 if rel == "split" else int(rng.integers(len(placed)))
                partner = placed[partner_i]
                if rel == "split":
                    if piece.side >= 0:
                        break
                    cands = [c for c in _split_positions(rng, partner, piece, 4) if _pieces_after(partner, piece, *c, p)]
                    if not cands:
                        continue
                    piece.y, piece.x = cands[0]
                else:
                    at = _along(rng, partner, piece, H, W)
                    target = 0
                    if rel == "overlap":
                        target = int(rng.uniform(*p.overlap) * min(partner.area, piece.area))
                    t = _solve(partner, piece, at, target, H, W)
                    if t is None:
                        continue
                    if rel == "gap":
                        t += max(p.min_gap, rng.uniform(*p.gap) * np.sqrt(piece.area))
                    piece.y, piece.x = at(t)
            top, inside = owners.with_piece(piece, len(placed))
            if owners.acceptable(top, in_canvas + [inside], placed + [piece], p):
                ok = True
                break
        if not ok:
            continue
        owners.top = top
        in_canvas.append(inside)
        if placed:
            done.append((len(placed), partner_i, rel))
        placed.append(piece)
    return placed, done


def _harmonise(rng, piece: Piece, bg_mean, p: Params):
    w = piece.alpha[..., None]
    mean = (piece.rgb * w).sum(axis=(0, 1)) / max(float(w.sum()), 1.0)
    lam = rng.uniform(*p.harmonise)
    piece.rgb = np.clip(piece.rgb + lam * (bg_mean - mean), 0, 255)


def _feather(rng, alpha, p: Params):
    s = rng.uniform(*p.feather)
    return cv2.GaussianBlur(alpha, (0, 0), s) if s > 0.3 else alpha


def render(rng, bg, pieces, p: Params, first_in_place=False):
    """Pastes the placed pieces over `bg` in order: image (float32), union alpha, ids, amodal masks.
    With `first_in_place` the first piece is `bg`'s own object (its crop, where it is): it takes
    part in the ownership but is neither harmonised, feathered nor shadowed, so its pixels stay."""
    H, W = bg.shape[:2]
    image = bg.copy()
    keep = np.ones((H, W), np.float32)        # transparency of everything pasted so far
    best = np.zeros((H, W), np.float32)       # largest visible alpha so far
    ids = np.zeros((H, W), np.uint8)
    amodal = []
    shadow = rng.random() < p.shadow_p
    bg_mean = bg.reshape(-1, 3).mean(axis=0)
    for n, piece in enumerate(pieces):
        in_place = first_in_place and n == 0
        if not in_place:
            _harmonise(rng, piece, bg_mean, p)
        alpha = piece.alpha if in_place else _feather(rng, piece.alpha, p)
        win = _window(H, W, piece.y, piece.x, *piece.shape)
        mask = np.zeros((H, W), bool)
        amodal.append(mask)
        if win is None:
            continue
        (cy, cx), (py, px) = win
        a = alpha[py, px]
        if shadow and not in_place:
            s = rng.uniform(2.0, 6.0)
            dy, dx = int(rng.integers(1, 7)), int(rng.integers(-3, 4))
            sh = np.zeros((H, W), np.float32)
            sh[cy, cx] = a
            sh = np.roll(cv2.GaussianBlur(sh, (0, 0), s), (dy, dx), axis=(0, 1))
            image *= (1 - rng.uniform(0.2, 0.5) * sh)[..., None]
        region = image[cy, cx]
        image[cy, cx] = a[..., None] * piece.rgb[py, px] + (1 - a[..., None]) * region
        # ownership: the earlier pieces' visible alphas shrink by (1 - a); this one's is a
        best[cy, cx] *= (1 - a)
        keep[cy, cx] *= (1 - a)
        take = a >= best[cy, cx]
        ids_win = ids[cy, cx]
        ids_win[take & (a > 0)] = n + 1
        best[cy, cx] = np.maximum(best[cy, cx], a)
        mask[cy, cx] = piece.hard[py, px]
    union = 1 - keep
    ids[union < 0.5] = 0
    return image, union, ids, amodal


def compose(rng, bank, spec, H, W, p: Params) -> Composite:
    """One composite on an H x W canvas. `spec`: count (K), same (bool), foregrounds (bank indices:
    one for `same`, K otherwise), relations (K - 1 of RELATIONS). Objects the layout cannot place
    are left out (Composite.relations lists the ones placed)."""
    pieces = _prepare(rng, bank, spec, H, W, p)
    bg, bg_key = background(rng, bank, H, W, exclude={pc.key for pc in pieces})
    placed, rels = layout(rng, pieces, spec["relations"], H, W, p)
    image, union, ids, amodal = render(rng, bg, placed, p)
    return Composite(np.clip(image + 0.5, 0, 255).astype(np.uint8), union, ids, amodal, rels,
                     [bg_key] + [pc.key for pc in placed])


def compose_on_photo(rng, bank, photo, mask, spec, p: Params) -> Composite | None:
    """A real photo with more objects pasted against its own: the photo's object (its ground
    truth's largest component) stays where it is, untouched, as instance 1; spec's K - 1 others
    (copies of that object, scale x(1 +- same_jitter), when spec["same"], else the bank's
    foregrounds spec["foregrounds"][1:], their longer side that of the photo's object x(1 +-
    diff_jitter)) are laid out and pasted as in `compose` (`split` asked for becomes `overlap`).
    So a photo that looks real is not always one object. None when the object is under `min_area`
    of the photo or nothing else could be placed."""
    H, W = mask.shape
    component = largest_component(mask)
    if component is None or component.sum() < p.min_area * H * W:
        return None
    x0, y0, w0, h0 = cv2.boundingRect(component)
    alpha = object_alpha(mask)[y0:y0 + h0, x0:x0 + w0]
    first = Piece(photo[y0:y0 + h0, x0:x0 + w0].astype(np.float32), alpha, -1, "photo", y0, x0)
    pieces = [first]
    for k in range(1, spec["count"]):
        if spec["same"]:
            rgb, a, side, key = first.rgb, first.alpha, -1, "photo"
            sc = rng.uniform(1 - p.same_jitter, 1 + p.same_jitter)
        else:
            rgb, a, side, key = bank.foreground(spec["foregrounds"][k])
            rgb = rgb.astype(np.float32)
            sc = max(h0, w0) / max(a.shape) * rng.uniform(1 - p.diff_jitter, 1 + p.diff_jitter)
        sc = min(sc, p.max_upscale, 0.95 * H / a.shape[0], 0.95 * W / a.shape[1])
        r, al = _resize(rgb, sc, sc).astype(np.float32), _resize(a, sc, sc)
        if rng.random() < 0.5:
            r, al, side = r[:, ::-1], al[:, ::-1], _flip_side(side)
        if spec["same"]:
            r = r * rng.uniform(1 - 0.06, 1 + 0.06, 3).astype(np.float32)
        pieces.append(Piece(np.ascontiguousarray(r), np.ascontiguousarray(al), side, key))
    relations = ["overlap" if r == "split" else r for r in spec["relations"]]
    placed, rels = layout(rng, pieces, relations, H, W, p, first_fixed=True)
    if len(placed) < 2 or placed[0] is not first:
        return None
    image, union, ids, amodal = render(rng, photo.astype(np.float32), placed, p, first_in_place=True)
    return Composite(np.clip(image + 0.5, 0, 255).astype(np.uint8), union, ids, amodal, rels,
                     ["photo"] + [pc.key for pc in placed])
