// Kernels take a thread count and split work with `Parallel.forEach`; users of LiftTensor get the
// wrapper with it, as before it moved to its own module (so that LiftImage's codecs can use it too).
@_exported import LiftParallel
