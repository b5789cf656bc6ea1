// libFuzzer target for the weight loader and graph decoder: any bytes must load or throw a typed
// error, never crash, hang or allocate unboundedly. A file that loads is also run once at a small
// input size. Build and run:
//   LIFT_FUZZ=1 swift build -c release --sanitize fuzzer --product fuzz-weights
//   SWIFT_BACKTRACE=enable=no .build/release/fuzz-weights Tests/Fuzz/FuzzWeights/corpus-run Tests/Fixtures/graphs
import LiftModel
import LiftTensor

/// Small limits so a hostile header cannot ask for much memory or time.
private let limits = WeightLimits(maxFileBytes: 8 << 20, maxHeaderBytes: 1 << 20, maxTensors: 4096,
                                  maxNodes: 4096, maxActivationElements: 1 << 22)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWeights(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let model = try? Model(bytes: bytes, limits: limits) else { return 0 }
    let input = Tensor(shape: TensorShape(n: 1, h: model.inputShape.height ?? 16, w: model.inputShape.width ?? 16,
                                          c: model.inputShape.channels))
    if input.count <= 1 << 14 { _ = try? model.run(input, threads: 1) }
    return 0
}
