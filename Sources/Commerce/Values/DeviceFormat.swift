/// Which page set a request gets and whether it comes from inside the hybrid app, as
/// WebSphere Commerce decides from the User-Agent (its `wc-devices.xml`).
///
/// Unverified: the exact User-Agent of the Madisons hybrid app. A UIWebView sends Mobile Safari's
/// string without the `Safari/…` token (`… Mobile/9A334`), which is what is matched here, as is a
/// `Madisons` token some builds add; `deviceFormat=` (parameter, then remembered in a cookie)
/// forces any of the four.
struct DeviceFormat: Sendable, Equatable {
    enum PageSet: String, Sendable {
        /// The iPhone pages (`mobile20`).
        case phone = "mobile20"
        /// The iPad pages (`tablet`).
        case tablet
    }

    var pageSet: PageSet
    /// Inside the hybrid app: pages carry `madisons://` bridge links instead of web fallbacks.
    var hybrid: Bool

    /// The name used by `deviceFormat=` and in the pages: `iPhoneHybrid`, `iPadHybrid`,
    /// `mobile20` or `tablet`.
    var name: String {
        switch (pageSet, hybrid) {
        case (.phone, true): "iPhoneHybrid"
        case (.tablet, true): "iPadHybrid"
        case (.phone, false): "mobile20"
        case (.tablet, false): "tablet"
        }
    }

    init(pageSet: PageSet, hybrid: Bool) {
        self.pageSet = pageSet
        self.hybrid = hybrid
    }

    init?(name: String) {
        switch name.lowercased() {
        case "iphonehybrid": self.init(pageSet: .phone, hybrid: true)
        case "ipadhybrid": self.init(pageSet: .tablet, hybrid: true)
        case "mobile20": self.init(pageSet: .phone, hybrid: false)
        case "tablet": self.init(pageSet: .tablet, hybrid: false)
        default: return nil
        }
    }

    /// From the User-Agent: iPads get the tablet pages, everything else the phone pages.
    init(userAgent: String) {
        let tablet = userAgent.containsText("iPad")
        let iOS = tablet || userAgent.containsText("iPhone") || userAgent.containsText("iPod")
        let hybrid = userAgent.containsText("Madisons") || (iOS && !userAgent.containsText("Safari/"))
        self.init(pageSet: tablet ? .tablet : .phone, hybrid: hybrid)
    }

    static let cookie = "UNDERSTUDY_DEVICE_FORMAT"
}
