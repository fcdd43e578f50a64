import Foundation

/// Shipping and tax of an order: flat rates by the catalog, as a starter store's defaults.
/// Unverified against a real store's calculation rules; the figures are the emulator's own.
struct Charges {
    let subtotal: Decimal
    let shipping: Decimal
    let tax: Decimal
    var total: Decimal { subtotal + shipping + tax }

    init(lines: [OrderLine]) {
        subtotal = lines.subtotal
        shipping = lines.isEmpty ? 0 : (subtotal >= 100 ? 0 : Decimal(string: "9.95")!)
        // A 7% sales tax on the goods, rounded to the cent.
        tax = Decimal(Money.roundedCents(subtotal * Decimal(string: "0.07")!)) / 100
    }
}
