#!/usr/bin/env python3
"""Parity fixtures for the `person` models: inputs, TFLite outputs, and MediaPipe's pre/post geometry.

Writes `Tests/Fixtures/person/`:
- `cases.json`: one entry per case: name, model (`person` / `person-landscape`), height, width.
- `NAME.rgb`: the model input as 8-bit RGB, height x width x 3 bytes, produced from the source photo
  exactly as MediaPipe's CPU ImageToTensorCalculator does it (cv2.getPerspectiveTransform of the
  whole frame onto the tensor + cv2.warpPerspective, INTER_LINEAR, zero border). The float input
  tensor is `float32(x) * float32(1/255)`.
- `NAME.mask.f32`: the TFLite interpreter's output (ai-edge-litert, default XNNPACK delegate, the
  original `.tflite` from the wheel), height x width little-endian float32, probabilities 0...1.
- `preprocess/`: two source images and their cv2.warpPerspective tensors (the Swift `Preprocess`
  is checked against them: one upscaled from 61x97, one downscaled at a ratio with rounding ties).

Before writing, every case also runs through `Tools/liftgraph_ref.py` on the converted
`Weights/*.safetensors`; the script fails if it differs from TFLite by more than 1e-4.

Usage: /work/venv/bin/python Tools/make_person_fixtures.py   (after Tools/convert_person.py)
"""
from __future__ import annotations

import json
import pathlib
import sys

import cv2
import numpy as np
import skimage.data
from ai_edge_litert.interpreter import Interpreter

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from liftgraph_ref import LiftGraph  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "Tests" / "Fixtures" / "person"
CACHE = ROOT / "Tools" / ".cache"
TFLITE = {"person": ("selfie_segmentation.tflite", 256, 256),
          "person-landscape": ("selfie_segmentation_landscape.tflite", 144, 256)}
TOLERANCE = 1e-4


def rgb(image: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.stack([image] * 3, -1) if image.ndim == 2 else image[..., :3])


def synthetic_pattern(height: int, width: int) -> np.ndarray:
    """Checkerboard, colour ramps and a disc: deterministic, no person."""
    y, x = np.mgrid[0:height, 0:width]
    image = np.zeros((height, width, 3), np.uint8)
    image[..., 0] = (x * 255 // (width - 1)).astype(np.uint8)
    image[..., 1] = (y * 255 // (height - 1)).astype(np.uint8)
    image[..., 2] = np.where(((x // 32) + (y // 32)) % 2 == 0, 230, 20)
    disc = (x - width * 0.6) ** 2 + (y - height * 0.4) ** 2 < (min(height, width) * 0.2) ** 2
    image[disc] = (250, 250, 250)
    return image


def image_to_tensor_u8(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """MediaPipe ImageToTensorCalculator, CPU/OpenCV path, whole frame, no rotation, zero border."""
    h, w = image.shape[:2]
    corners = cv2.boxPoints(((w / 2, h / 2), (w, h), 0))
    target = np.float32([[0, height], [0, 0], [width, 0], [width, height]])
    matrix = cv2.getPerspectiveTransform(corners, target)
    return cv2.warpPerspective(image, matrix, (width, height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT)


def to_tensor(pixels: np.ndarray) -> np.ndarray:
    """MediaPipe's convertTo(CV_32F, scale = 1/255, offset = 0), with a batch dimension."""
    return (pixels.astype(np.float32) * np.float32(1.0 / 255.0))[None]


def run_tflite(model: str, x: np.ndarray) -> np.ndarray:
    interpreter = Interpreter(model_path=str(CACHE / TFLITE[model][0]), num_threads=1)
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    return interpreter.get_tensor(interpreter.get_output_details()[0]["index"]).copy()


def cases() -> list[tuple[str, str, np.ndarray]]:
    """(name, model, source photo RGB u8)."""
    astronaut = skimage.data.astronaut()
    return [
        ("astronaut", "person", astronaut),
        ("camera", "person", rgb(skimage.data.camera())),
        ("coffee", "person", skimage.data.coffee()),
        ("pattern", "person", synthetic_pattern(300, 220)),
        ("astronaut-wide", "person-landscape", astronaut[0:288]),  # 512 x 288: 16:9 with the person
        ("chelsea-wide", "person-landscape", skimage.data.chelsea()),
    ]


def write_preprocess_fixtures(folder: pathlib.Path) -> list[dict]:
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    rng = np.random.default_rng(4)
    sources = [("noise-61x97", rng.integers(0, 256, (97, 61, 3), dtype=np.uint8), 256, 256),
               ("coffee-300x200", np.ascontiguousarray(skimage.data.coffee()[100:300, 150:450]), 144, 256)]
    for name, source, height, width in sources:
        (folder / f"{name}.rgb").write_bytes(source.tobytes())
        (folder / f"{name}.tensor.rgb").write_bytes(image_to_tensor_u8(source, height, width).tobytes())
        entries.append({"name": name, "source_height": source.shape[0],
                        "source_width": source.shape[1], "height": height, "width": width})
    return entries


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    graphs = {model: LiftGraph.load(ROOT / "Weights" / f"{model}.safetensors") for model in TFLITE}
    manifest = []
    for name, model, photo in cases():
        _, height, width = TFLITE[model]
        pixels = image_to_tensor_u8(photo, height, width)
        x = to_tensor(pixels)
        expected = run_tflite(model, x)
        ours = graphs[model].run({"image": x})["mask"]
        delta = float(np.abs(ours - expected).max())
        print(f"{name:16s} {model:17s} TFLite mean {expected.mean():.4f}  reference max|d| {delta:.2e}")
        if delta > TOLERANCE:
            raise SystemExit(f"{name}: the converted graph differs from TFLite by {delta} > {TOLERANCE}")
        (OUT / f"{name}.rgb").write_bytes(pixels.tobytes())
        (OUT / f"{name}.mask.f32").write_bytes(expected.astype("<f4").tobytes())
        manifest.append({"name": name, "model": model, "height": height, "width": width})
    (OUT / "cases.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    preprocess = write_preprocess_fixtures(OUT / "preprocess")
    (OUT / "preprocess" / "cases.json").write_text(json.dumps(preprocess, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
