extension NMEAParser {
    /// Parser tolerance.
    public struct Options: Sendable, Hashable {
        /// Accept a sentence that has no `*hh` at all. A checksum that is present is still verified.
        /// Off by default: without a checksum a line cut short by a dropped byte looks valid.
        public var acceptsMissingChecksum: Bool
        /// Accept lowercase hex digits in the checksum (the standard says uppercase).
        public var acceptsLowercaseChecksum: Bool
        /// Longest sentence accepted, from `$` to the checksum, line ending excluded. NMEA's limit is 82;
        /// real receivers exceed it (survey receivers' 8-decimal positions reach ~94), so the default
        /// is 120, still short enough that a run of junk is cut off quickly.
        public var maximumLength: Int

        public init(acceptsMissingChecksum: Bool = false, acceptsLowercaseChecksum: Bool = false,
                    maximumLength: Int = 120) {
            self.acceptsMissingChecksum = acceptsMissingChecksum
            self.acceptsLowercaseChecksum = acceptsLowercaseChecksum
            self.maximumLength = maximumLength
        }

        /// The standard: checksum required, uppercase hex.
        public static let strict = Options()
        /// For receivers (and hand-written logs) that omit checksums or write them in lowercase.
        public static let lenient = Options(acceptsMissingChecksum: true, acceptsLowercaseChecksum: true)
    }
}
