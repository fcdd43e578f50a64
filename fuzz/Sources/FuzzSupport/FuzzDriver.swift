import CFuzzer

/// Hands the process to libFuzzer with `target` as the function under test. SwiftPM gives every
/// executable its own `main`, so libFuzzer's is not used; its driver is called from here, with
/// the command line as given (corpus directories, `-max_total_time=…`, `-runs=…`).
public func runFuzzer(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, target))
}

@_silgen_name("exit")
private func exit(_ status: CInt) -> Never
