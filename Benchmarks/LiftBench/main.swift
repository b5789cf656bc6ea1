// lift-bench: Lift's benchmarks (always `swift run -c release lift-bench SUBCOMMAND ...`).
import Foundation
import Lift

let benchArguments = Array(CommandLine.arguments.dropFirst())
let rest = Array(benchArguments.dropFirst())
switch benchArguments.first {
case "png": runPNGBench(rest)
case "jpeg": runJPEGBench(rest)
case "jpeg-encode": runJPEGEncodeBench(rest)
case "webp": runWebPBench(rest)
case "mask": runMaskBench(rest)
case "mask-quality": runMaskQuality(rest)
case "kernels": runKernelBench(arguments: rest)
case "team": runTeamBench(rest)
case "model": runModelBench(rest)
case "person": try runPersonBench(rest)
case "pipeline": runPipelineBench(rest)
case "subject": runSubjectBench(rest)
default:
    print("""
    usage: lift-bench SUBCOMMAND ARGS…
      png DIR [REPEATS] [--compressors-only]
                                        PNG compressors, decode/encode (pair with Benchmarks/png_peer.py)
      jpeg …                            JPEG decode (run through Benchmarks/jpeg_peer.py)
      jpeg-encode …                     JPEG encode (run through Benchmarks/jpeg_encode_peer.py)
      webp decode|encode FILE…          WebP decode, lossless encode (run through Benchmarks/webp_peer.py)
      mask DIR [--runs N]               connected components, guided filter, mask stage
      mask-quality …                    edge error against DUTS ground truth (Benchmarks/mask_quality.py)
      kernels [--json] [--filter NAME] [--buffers N]
      team                              fixed cost of a two-part team job (µs)
      model [--size 320] [--runs 5] [--rounds 3] [--threads 1,2] [--profile]
      person [--runs N] [--profile]     person model latency (pair with Benchmarks/person_peer.py)
      pipeline JPEG PNG [--model M] [--threads 1,2] [--repeat N]
                                        decode → model → mask → composite → encode (pair with
                                        Benchmarks/pipeline_peer.py)
      subject FILE... [--threads 1,2] [--runs N] [--rounds N] [--repeat N] [--profile]
                                        subject model and pipeline vs onnxruntime / a rembg-shaped
                                        peer, same run (Benchmarks/subject_peer.py)
    """)
    exit(2)
}
