import Foundation

/// Prices as decimal text and as the store shows them.
enum Money {
    static func format(_ amount: Decimal) -> String {
        format(cents: roundedCents(amount))
    }

    /// Decimal text ("1234.5", "-3.99", "12") as cents, by hand: this runs for every price on a
    /// page. Anything else is read as a `Decimal`.
    static func cents(_ text: String) -> Int {
        var utf8 = Substring(text).utf8[...]
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        var whole = 0
        var fraction = 0
        var fractionDigits = 0
        var seenPoint = false
        for byte in utf8 {
            if byte == UInt8(ascii: ".") && !seenPoint {
                seenPoint = true
                continue
            }
            guard byte >= 0x30 && byte <= 0x39, whole < Int.max / 100, fractionDigits < 2 || !seenPoint else {
                return roundedCents(Decimal(string: text) ?? 0)
            }
            if seenPoint {
                fraction = fraction * 10 + Int(byte - 0x30)
                fractionDigits += 1
            } else {
                whole = whole * 10 + Int(byte - 0x30)
            }
        }
        let cents = whole * 100 + (fractionDigits == 1 ? fraction * 10 : fraction)
        return negative ? -cents : cents
    }

    /// `$1,234.50`, written backwards into a small buffer and made a String once (a price this
    /// short is stored inside the String value: no allocation), where building it from pieces of
    /// String cost about 1,500 instructions.
    static func format(cents: Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { buffer in
            var start = buffer.count
            func prepend(_ byte: UInt8) {
                start -= 1
                buffer[start] = byte
            }
            let magnitude = cents.magnitude
            prepend(UInt8(ascii: "0") + UInt8(magnitude % 10))
            prepend(UInt8(ascii: "0") + UInt8(magnitude / 10 % 10))
            prepend(UInt8(ascii: "."))
            var dollars = magnitude / 100
            var digits = 0
            repeat {
                if digits > 0, digits % 3 == 0 { prepend(UInt8(ascii: ",")) }
                prepend(UInt8(ascii: "0") + UInt8(dollars % 10))
                dollars /= 10
                digits += 1
            } while dollars > 0
            prepend(UInt8(ascii: "$"))
            if cents < 0 { prepend(UInt8(ascii: "-")) }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[start...]), as: UTF8.self)
        }
    }

    /// `12.5` → `"12.50"`.
    /// The amount in cents, half a cent rounded away from zero.
    static func roundedCents(_ amount: Decimal) -> Int {
        let handler = NSDecimalNumberHandler(
            roundingMode: .plain, scale: 0, raiseOnExactness: false, raiseOnOverflow: false,
            raiseOnUnderflow: false, raiseOnDivideByZero: false)
        return NSDecimalNumber(decimal: amount * 100).rounding(accordingToBehavior: handler).intValue
    }

    static func plain(_ amount: Decimal) -> String {
        let cents = roundedCents(amount)
        return (cents < 0 ? "-" : "") + String(abs(cents) / 100) + "." + String(abs(cents) % 100).leftPadded(to: 2)
    }
}
