// Clocks shared by the benchmark families: CPU time of the thread or process, and wall time.
import Foundation

/// CPU seconds used so far by the calling thread (excludes time spent preempted or in other threads).
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// CPU seconds used so far by the whole process, user + system, all threads together.
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Monotonic wall-clock seconds (for multi-threaded runs, where CPU time would add the threads up).
func wallSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
