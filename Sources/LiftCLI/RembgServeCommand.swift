import LiftPipeline

/// `lift s [rembg's flags]`: rembg's `s` verb, `lift serve` under rembg's flags, so `rembg s --port
/// 7000` works with only the program's name changed. `-p, --port N` and `-h, --host H` are Lift's
/// `--port` and `--host`; `-t, --threads N` (rembg's request threads) is `--workers N`; `-l,
/// --log_level LEVEL` is taken and has no effect (Lift logs one line per request). Any other
/// argument is passed to `lift serve` as it is. Unlike rembg, which listens on 0.0.0.0 by default,
/// Lift listens on 127.0.0.1 unless `-h` says otherwise.
public enum RembgServeCommand: Subcommand {
    public static let name = "s"
    /// The server drains on SIGTERM and Ctrl-C, as `lift serve` does.
    public static let handlesSignals = true

    public static func run(_ arguments: [String], environment: CommandEnvironment) -> Int32 {
        if arguments.contains("--help") {
            return environment.printHelp("""
                USAGE
                  lift s [-p PORT] [-h HOST] [-t THREADS] [-l LEVEL] [lift serve's options]

                rembg's server verb: lift serve with rembg's flags. -p/--port and -h/--host as lift serve's
                --port and --host (the host is 127.0.0.1 unless -h says otherwise; rembg's is 0.0.0.0),
                -t/--threads is --workers, -l/--log_level is taken and has no effect. lift serve --help
                lists the rest; docs/rembg.md compares the two.

                """)
        }
        do throws(UsageError) {
            return ServeCommand.run(try serveArguments(arguments), environment: environment)
        } catch {
            return environment.usageFailure(name, error.description)
        }
    }

    /// `arguments` in rembg's spelling as `lift serve`'s (`--port=7000` forms included).
    public static func serveArguments(_ arguments: [String]) throws(UsageError) -> [String] {
        let renamed = ["-p": "--port", "--port": "--port", "-h": "--host", "--host": "--host",
                       "-t": "--workers", "--threads": "--workers", "-l": "", "--log_level": ""]
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard let lift = renamed[parts[0]] else {
                result.append(argument)
                continue
            }
            let value: String
            if parts.count == 2 {
                value = parts[1]
            } else {
                guard index < arguments.count else { throw .missingValue(option: parts[0]) }
                value = arguments[index]
                index += 1
            }
            if !lift.isEmpty { result += [lift, value] }
        }
        return result
    }
}
