import LiftImage
import TestSupport

/// Synthetic hard masks that stress connected-component labelling.
enum MaskPatterns {
    /// A mask from a predicate on (x, y).
    static func make(_ width: Int, _ height: Int, _ on: (Int, Int) -> Bool) -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0 ..< height { for x in 0 ..< width where on(x, y) { pixels[y * width + x] = 255 } }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// Random pixels, each on with probability `density`.
    static func noise(_ width: Int, _ height: Int, density: Double, seed: UInt64) -> GrayImage {
        var generator = SeededGenerator(seed: seed)
        return make(width, height) { _, _ in Double.random(in: 0 ..< 1, using: &generator) < density }
    }

    /// A square spiral whose 1-pixel wall is one long component, with 1-pixel gaps between turns.
    static func spiral(_ size: Int) -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: size * size)
        var (x, y) = (0, 0)
        var (dx, dy) = (1, 0)
        var (left, top, right, bottom) = (0, 2, size - 1, size - 1)
        var steps = 0
        while steps < size * size {
            pixels[y * size + x] = 255
            let (nx, ny) = (x + dx, y + dy)
            let blocked = (dx == 1 && nx > right) || (dy == 1 && ny > bottom) || (dx == -1 && nx < left) || (dy == -1 && ny < top)
            if blocked {
                if dx == 1 { right -= 2 } else if dy == 1 { bottom -= 2 } else if dx == -1 { left += 2 } else { top += 2 }
                (dx, dy) = (-dy, dx)
                if left > right || top > bottom { break }
            } else {
                (x, y) = (nx, ny)
            }
            steps += 1
        }
        return GrayImage(width: size, height: size, pixels: pixels)
    }

    /// Named cases for the component tests.
    static var all: [(name: String, mask: GrayImage)] {
        var cases: [(String, GrayImage)] = [
            ("spiral 41", spiral(41)),
            ("spiral 130", spiral(130)),
            ("checkerboard 19x70", make(19, 70) { ($0 + $1) % 2 == 0 }),
            ("diagonal touches", make(12, 12) { x, y in x == y || x + y == 11 || (x == y + 3 && y % 2 == 0) }),
            ("ring with hole and island", make(30, 30) { x, y in
                let d = max(abs(x - 15), abs(y - 15))
                return d == 10 || d == 9 || d <= 2
            }),
            ("1-pixel lines", make(70, 90) { x, y in y == 5 || x == 40 || x == y + 10 || (y == 80 && x % 3 != 0) }),
            ("objects on every border", make(33, 66) { x, y in
                x == 0 || y == 0 || x == 32 || y == 65 || (x >= 30 && y >= 30 && y < 34) || (x < 3 && y % 10 < 4)
            }),
            ("corners only", make(9, 9) { x, y in (x == 0 || x == 8) && (y == 0 || y == 8) }),
            ("all on 37x70", make(37, 70) { _, _ in true }),
            ("all off 37x70", make(37, 70) { _, _ in false }),
            ("all on 1x1", make(1, 1) { _, _ in true }),
            ("all off 1x1", make(1, 1) { _, _ in false }),
            ("1x200 alternating runs", make(200, 1) { x, _ in (x / 3) % 2 == 0 || x > 150 }),
            ("200x1 alternating runs", make(1, 200) { _, y in (y / 3) % 2 == 0 || y > 150 }),
            ("word edges 65 wide", make(65, 70) { x, y in x == 7 || x == 8 || x == 31 || x == 32 || x == 64 || (y == 3 && x > 20) }),
        ]
        for (index, (width, height, density)) in [(1, 300, 0.5), (300, 1, 0.5), (7, 9, 0.4), (33, 33, 0.5),
                                                  (100, 131, 0.45), (64, 129, 0.6), (200, 150, 0.1), (97, 140, 0.9)].enumerated() {
            cases.append(("noise \(width)x\(height) p\(density)", noise(width, height, density: density, seed: UInt64(index + 1))))
        }
        return cases
    }
}
