/// Foundation-free number formatting for the progress bar and the summary.
enum NumberFormatting {
    /// 1234567 → "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(abs(value))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return value < 0 ? "-" + out : out
    }

    /// Seconds as "0:07", "12:34" or "1:02:03".
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--:--" }
        let total = Int(seconds.rounded())
        let h = total / 3600, m = total / 60 % 60, s = total % 60
        let ss = s < 10 ? "0\(s)" : "\(s)"
        if h > 0 { return "\(h):\(m < 10 ? "0" : "")\(m):\(ss)" }
        return "\(m):\(ss)"
    }

    /// Seconds with two decimals: "1.23".
    static func seconds(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// Rows per second, grouped; "-" before any time has passed.
    static func rate(_ rows: Int, _ seconds: Double) -> String {
        seconds > 0 ? grouped(Int((Double(rows) / seconds).rounded())) : "-"
    }
}
