/// JPEG marker codes (the byte after `FF`) and their names for error messages.
enum JPEGMarker {
    static let soi: UInt8 = 0xD8
    static let eoi: UInt8 = 0xD9
    static let sos: UInt8 = 0xDA
    static let dqt: UInt8 = 0xDB
    static let dnl: UInt8 = 0xDC
    static let dri: UInt8 = 0xDD
    static let dht: UInt8 = 0xC4
    static let dac: UInt8 = 0xCC
    static let app0: UInt8 = 0xE0
    static let app1: UInt8 = 0xE1
    static let app2: UInt8 = 0xE2
    static let app14: UInt8 = 0xEE
    static let com: UInt8 = 0xFE

    /// True for the restart markers `RST0`…`RST7`.
    @inline(__always) static func isRestart(_ code: UInt8) -> Bool { code & 0xF8 == 0xD0 }

    /// The conventional name of a marker code, such as `"SOF2"`, `"DHT"` or `"APP1"`.
    static func name(_ code: UInt8) -> String {
        switch code {
        case 0xC0 ... 0xC3, 0xC5 ... 0xC7, 0xC9 ... 0xCB, 0xCD ... 0xCF: return "SOF\(code - 0xC0)"
        case dht: return "DHT"
        case dac: return "DAC"
        case 0xD0 ... 0xD7: return "RST\(code - 0xD0)"
        case soi: return "SOI"
        case eoi: return "EOI"
        case sos: return "SOS"
        case dqt: return "DQT"
        case dnl: return "DNL"
        case dri: return "DRI"
        case 0xE0 ... 0xEF: return "APP\(code - 0xE0)"
        case com: return "COM"
        default: return "marker FF\(String(code, radix: 16, uppercase: true))"
        }
    }
}
