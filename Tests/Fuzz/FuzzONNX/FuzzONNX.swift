// libFuzzer target for the ONNX reader and importer: any bytes must read, import and load as a
// model or throw a typed error, never crash, hang or allocate unboundedly. Build and run (or Benchmarks/fuzz.sh):
//   LIFT_FUZZ=1 swift build -c release --sanitize fuzzer --product fuzz-onnx
//   SWIFT_BACKTRACE=enable=no .build/release/fuzz-onnx CORPUS Tests/Fixtures/onnx
import LiftModel

/// Small limits so a hostile file cannot ask for much memory (also for the imported model's buffers).
private let limits = WeightLimits(maxFileBytes: 8 << 20, maxTensors: 4096, maxNodes: 4096, maxActivationElements: 1 << 22,
                                  maxPlannedElements: 1 << 24, maxPackedWeightElements: 1 << 22)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzONNX(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let model = try? ONNXModel(bytes: Array(UnsafeBufferPointer(start: data, count: size)), limits: limits) else { return 0 }
    _ = try? ONNXConversion(model: model, preset: nil).model(limits: limits)
    return 0
}
