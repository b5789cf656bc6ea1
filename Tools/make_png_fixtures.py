#!/usr/bin/env python3
"""Writes the PNG decoder's conformance corpus to Tests/Fixtures/png/.

Usage: /work/venv/bin/python Tools/make_png_fixtures.py [OUTPUT_DIR]

For every colour type x legal bit depth x interlace (plus colour-key, palette-alpha, metadata,
odd-size and Pillow-written cases) it writes:
  NAME.png     the file, written by the small writer below, which cycles all five filter types row by
               row (offset per Adam7 pass) and splits the image data over several IDAT chunks;
  NAME.rgba8   expected pixels, 8-bit RGBA, row-major;
  NAME.rgba16  expected pixels, 16-bit RGBA, big-endian, row-major.
The expected pixels come from pypng (an independent decoder) reading NAME.png, and the script checks
that pypng returns exactly the samples that were written. Pillow cross-checks the 8-bit cases it can
read. Sample scaling (documented in Sources/LiftImage/PNG/PNGSampleConversion.swift):
  to 8 bits:  depth < 8: v * 255 / (2^d - 1);  depth 16: (v * 255 + 32895) >> 16 (= round(v / 257))
  to 16 bits: v * 65535 / (2^d - 1)
Colour key (tRNS) pixels get alpha 0, others alpha max; palette alpha comes from tRNS (255 past its end).

It also writes bomb fixtures (bomb-*.png) used by the invalid-input tests, and manifest.tsv listing the
conformance cases as: name width height colour_type bit_depth interlace.
"""
import io
import os
import struct
import sys
import zlib

import numpy as np
import png  # pypng
from PIL import Image

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "png")
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
DEPTHS = {0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]}
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def pack_row(samples, depth):
    """Packs a 1-D array of samples into PNG scanline bytes (no filter byte)."""
    if depth == 16:
        return samples.astype(">u2").tobytes()
    if depth == 8:
        return samples.astype(np.uint8).tobytes()
    per_byte = 8 // depth
    padded = np.zeros(-(-len(samples) // per_byte) * per_byte, dtype=np.uint8)
    padded[: len(samples)] = samples
    out = np.zeros(len(padded) // per_byte, dtype=np.uint8)
    for k in range(per_byte):
        out |= (padded[k::per_byte] << (8 - depth * (k + 1))).astype(np.uint8)
    return out.tobytes()


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def filter_row(kind, raw, prev, bpp):
    out = bytearray(len(raw))
    for i in range(len(raw)):
        a = raw[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out[i] = (raw[i] - pred) & 0xFF
    return bytes([kind]) + bytes(out)


def scanlines(pixels, depth, interlace):
    """Filtered image data for pixels[h, w, channels], cycling filter types 0..4."""
    h, w, ch = pixels.shape
    bpp = max(1, ch * depth // 8)
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    data = bytearray()
    for p, (x0, y0, dx, dy) in enumerate(passes):
        sub = pixels[y0::dy, x0::dx]
        if sub.shape[0] == 0 or sub.shape[1] == 0:
            continue
        prev = bytes(len(pack_row(sub[0].reshape(-1), depth)))
        for y in range(sub.shape[0]):
            raw = pack_row(sub[y].reshape(-1), depth)
            data += filter_row((y + p) % 5, raw, prev, bpp)
            prev = raw
    return bytes(data)


def write_png(pixels, colour_type, depth, interlace, extra_before=b"", palette=None, trns=None, idat_parts=3):
    h, w, _ = pixels.shape
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour_type, 0, 0, int(interlace)))
    out += extra_before
    if palette is not None:
        out += chunk(b"PLTE", bytes(np.asarray(palette, dtype=np.uint8).reshape(-1)))
    if trns is not None:
        out += chunk(b"tRNS", trns)
    z = zlib.compress(scanlines(pixels, depth, interlace), 9)
    step = max(1, -(-len(z) // idat_parts))
    for i in range(0, len(z), step):
        out += chunk(b"IDAT", z[i : i + step])
    return out + chunk(b"IEND", b"")


def test_pattern(rng, h, w, ch, maxval):
    """Gradients plus noise plus a few flat patches, so every filter type matters."""
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.stack([(xx * (k + 3) + yy * (2 * k + 1)) for k in range(ch)], axis=-1).astype(np.int64)
    noise = rng.integers(0, maxval + 1, size=(h, w, ch))
    mix = np.where(rng.random((h, w, 1)) < 0.5, base * max(1, maxval // 64), noise)
    mix[h // 3 : h // 2, w // 4 : w // 2] = maxval // 2
    return (mix % (maxval + 1)).astype(np.int64)


def to8(v, depth):
    return (v * 255 + 32895) >> 16 if depth == 16 else v * 255 // ((1 << depth) - 1)


def to16(v, depth):
    return v * 65535 // ((1 << depth) - 1)


def expected_rgba(direct, colour_type, depth, has_alpha, channels):
    """RGBA at the source depth from pypng's asDirect rows (palette already expanded)."""
    h, w = direct.shape[:2]
    maxval = 255 if colour_type == 3 else (1 << depth) - 1
    d = 8 if colour_type == 3 else depth
    rgba = np.zeros((h, w, 4), dtype=np.int64)
    if channels - int(has_alpha) == 1:
        rgba[..., 0:3] = direct[..., 0:1]
    else:
        rgba[..., 0:3] = direct[..., 0:3]
    rgba[..., 3] = direct[..., -1] if has_alpha else maxval
    return to8(rgba, d).astype(np.uint8), to16(rgba, d).astype(">u2")


def save_case(name, data, manifest, colour_type, depth, interlace):
    path = os.path.join(OUT, name + ".png")
    with open(path, "wb") as f:
        f.write(data)
    w, h, rows, meta = png.Reader(bytes=data).asDirect()
    planes = meta["planes"]
    direct = np.array([np.asarray(r, dtype=np.int64) for r in rows]).reshape(h, w, planes)
    rgba8, rgba16 = expected_rgba(direct, colour_type, depth, meta["alpha"], planes)
    with open(os.path.join(OUT, name + ".rgba8"), "wb") as f:
        f.write(rgba8.tobytes())
    with open(os.path.join(OUT, name + ".rgba16"), "wb") as f:
        f.write(rgba16.tobytes())
    if depth == 8 or colour_type == 3:
        pil = np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))
        if not np.array_equal(pil, rgba8):
            print(f"note: Pillow differs from pypng on {name}")
    manifest.append(f"{name}\t{w}\t{h}\t{colour_type}\t{depth}\t{int(interlace)}")
    return direct


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20261130)
    manifest = []
    for ct, depths in DEPTHS.items():
        for depth in depths:
            for interlace in (False, True):
                ch = CHANNELS[ct]
                h, w = (32, 32) if depth >= 8 else (29, 35)
                maxval = (1 << depth) - 1
                pixels = test_pattern(rng, h, w, ch, maxval)
                palette = None
                if ct == 3:
                    palette = rng.integers(0, 256, size=(maxval + 1, 3))
                name = f"ct{ct}-d{depth:02d}-{'adam7' if interlace else 'plain'}"
                direct = save_case(name, write_png(pixels, ct, depth, interlace, palette=palette), manifest, ct, depth, interlace)
                if ct != 3:
                    assert np.array_equal(direct, pixels), name
    # Colour keys (tRNS for grey and RGB), palette alpha (tRNS shorter than PLTE), odd Adam7 sizes.
    for depth in (1, 2, 4, 8, 16):
        maxval = (1 << depth) - 1
        pixels = test_pattern(rng, 16, 19, 1, maxval)
        key = int(pixels[3, 3, 0])
        save_case(f"key-ct0-d{depth:02d}", write_png(pixels, 0, depth, depth == 4, trns=struct.pack(">H", key)), manifest, 0, depth, depth == 4)
    for depth in (8, 16):
        maxval = (1 << depth) - 1
        pixels = test_pattern(rng, 16, 19, 3, maxval)
        pixels[5:9, 5:9] = pixels[2, 2]
        key = struct.pack(">HHH", *[int(v) for v in pixels[2, 2]])
        save_case(f"key-ct2-d{depth:02d}", write_png(pixels, 2, depth, depth == 16, trns=key), manifest, 2, depth, depth == 16)
    for depth in (2, 8):
        maxval = (1 << depth) - 1
        pixels = test_pattern(rng, 21, 13, 1, maxval)
        palette = rng.integers(0, 256, size=(maxval + 1, 3))
        alphas = bytes(rng.integers(0, 256, size=max(1, (maxval + 1) // 2)).astype(np.uint8))
        save_case(f"palette-alpha-d{depth}", write_png(pixels, 3, depth, depth == 8, palette=palette, trns=alphas), manifest, 3, depth, depth == 8)
    for h, w in ((1, 1), (1, 9), (9, 1), (3, 5), (7, 2), (33, 17)):
        pixels = test_pattern(rng, h, w, 4, 255)
        save_case(f"adam7-rgba-{w}x{h}", write_png(pixels, 6, 8, True, idat_parts=1), manifest, 6, 8, True)
    meta = (chunk(b"gAMA", struct.pack(">I", 45455)) + chunk(b"sRGB", b"\x00")
            + chunk(b"iCCP", b"fake\x00\x00" + zlib.compress(b"not a real profile"))
            + chunk(b"pHYs", struct.pack(">IIB", 2835, 2835, 1)) + chunk(b"eXIf", b"MM\x00\x2a\x00\x00\x00\x08\x00\x00")
            + chunk(b"prVt", b"unknown ancillary chunk, skipped"))
    pixels = test_pattern(rng, 8, 8, 3, 255)
    save_case("metadata-ct2-d08", write_png(pixels, 2, 8, False, extra_before=meta, idat_parts=5), manifest, 2, 8, False)
    # A Pillow-written photo-like image (its own filter choice and zlib settings).
    pixels = test_pattern(rng, 40, 48, 3, 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(pixels, "RGB").save(buf, "PNG")
    save_case("pillow-ct2-d08", buf.getvalue(), manifest, 2, 8, False)
    # Wide flat grey rows (a mask): exercises the decoder's flat-run shortcut in 1-byte Paeth rows.
    pixels = np.zeros((15, 130, 1), dtype=np.int64)
    pixels[3:12, 40:90] = 255
    pixels[6, 70] = 7
    pixels[:, 100:] = 128
    save_case("flat-ct0-d08", write_png(pixels, 0, 8, False), manifest, 0, 8, False)
    # Wide Adam7 rows: the later passes span several of the decoder's 128 KiB row batches.
    yy, xx = np.mgrid[0:36, 0:2600]
    pixels = np.stack([xx % 256, (xx // 12 + yy) % 256, (yy * 4) % 256], axis=-1).astype(np.int64)
    pixels[rng.random((36, 2600)) < 0.01] = 255
    save_case("wide-adam7-ct2-d08", write_png(pixels, 2, 8, True), manifest, 2, 8, True)
    with open(os.path.join(OUT, "manifest.tsv"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    # Bombs: a tiny file declaring a huge image, and a 1x1 image whose stream inflates to 64 MiB.
    header = b"\x89PNG\r\n\x1a\n"
    tiny = zlib.compress(b"\x00" * 4096, 9)
    with open(os.path.join(OUT, "bomb-huge-declared.png"), "wb") as f:
        f.write(header + chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 6, 0, 0, 0))
                + chunk(b"IDAT", tiny) + chunk(b"IEND", b""))
    with open(os.path.join(OUT, "bomb-ratio.png"), "wb") as f:
        f.write(header + chunk(b"IHDR", struct.pack(">IIBBBBB", 12000, 12000, 8, 6, 0, 0, 0))
                + chunk(b"IDAT", tiny) + chunk(b"IEND", b""))
    endless = zlib.compress(b"\x00" * (64 << 20), 9)
    with open(os.path.join(OUT, "bomb-endless-stream.png"), "wb") as f:
        f.write(header + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", endless) + chunk(b"IEND", b""))
    print(f"wrote {len(manifest)} cases to {OUT}")


if __name__ == "__main__":
    main()
