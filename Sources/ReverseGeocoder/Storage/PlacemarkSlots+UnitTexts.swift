import Foundation

extension PlacemarkSlots {
    /// A layer's placemark section read for its units' codes and names only, without making placemarks:
    /// what selecting units by code or name needs (``ReverseGeocoder/administrativeUnits(withCode:orName:)``).
    /// Decoding every placemark to read a few strings of each was nearly all of `geocode track --region`'s
    /// start, and kept 42,000 placemarks in memory for the run. Every offset is checked against the
    /// text (``textBytes(at:slots:bytes:)``, as ``read(_:slots:bytes:dataset:pool:)`` reads it); the caller
    /// proves the bytes first.
    struct UnitTexts {
        let slots: UnsafeBufferPointer<UInt32>
        let bytes: UnsafeRawBufferPointer
        /// Per level (by rank): where its code, its name and its names in other languages are in a unit's
        /// row of slots. Kept here, with the row's size, for the reads: the static tables behind them cost
        /// a lazy-initialization check on every read (2 % of a `track --region` start, callgrind).
        private let levels: [(code: Int, name: Int, names: Int)]
        private let rowSize: Int

        init(slots: UnsafeBufferPointer<UInt32>, bytes: UnsafeRawBufferPointer) {
            self.slots = slots
            self.bytes = bytes
            levels = AdminLevel.allCases.map { level in
                (2 * fields.firstIndex(of: .level(level, .code))!, 2 * fields.firstIndex(of: .level(level, .name))!,
                 2 * (fields.count + level.rank))
            }
            rowSize = slotsPerPlacemark
        }

        /// The place of the (offset, length) pair `slot` of unit `u`'s row.
        private func at(_ u: Int, _ slot: Int) throws(Damage) -> Int {
            let at = u * rowSize + slot
            guard at >= 0, at + 1 < slots.count else { throw Damage(reason: "placemark table size") }
            return at
        }

        /// Unit `u`'s code at `level`, as stored (UTF-8).
        func code(_ u: Int, _ level: AdminLevel) throws(Damage) -> UnsafeRawBufferPointer? {
            try PlacemarkSlots.textBytes(at: try at(u, levels[level.rank].code), slots: slots, bytes: bytes)
        }

        /// Unit `u`'s name at `level`, as stored (UTF-8).
        func name(_ u: Int, _ level: AdminLevel) throws(Damage) -> UnsafeRawBufferPointer? {
            try PlacemarkSlots.textBytes(at: try at(u, levels[level.rank].name), slots: slots, bytes: bytes)
        }

        /// What names unit `u`'s names in other languages at `level`: a layer writes each distinct names
        /// text once, so units with the same key have the same names (a country's, under each of its
        /// localities). nil: none.
        func namesKey(_ u: Int, _ level: AdminLevel) -> UInt64? {
            let at = u * rowSize + levels[level.rank].names
            guard at >= 0, at + 1 < slots.count, slots[at + 1] != UInt32.max else { return nil }
            return PlacemarkSlots.word(at: at, slots: slots)
        }

        /// Whether `accepts` accepts one of unit `u`'s names in other languages at `level`, each given as
        /// its UTF-8 bytes (asked in the order stored, until one is).
        func hasName(_ u: Int, _ level: AdminLevel, _ accepts: (UnsafeRawBufferPointer) -> Bool) throws(Damage) -> Bool {
            guard let packed = try PlacemarkSlots.textBytes(at: try at(u, levels[level.rank].names), slots: slots, bytes: bytes) else {
                return false
            }
            guard let base = packed.baseAddress, !packed.isEmpty else { throw Damage(reason: "placemark names malformed") }
            // `tag US name RS tag US name ...`, as ``append(_:slots:text:pool:)`` writes it. Walked in place,
            // the separators found by memchr: splitting made an array for every unit's names (6 % of a
            // `track --region` start, perf), and a generic search of the slice was 9 % (callgrind).
            var start = 0
            while true {
                let end = memchr(base + start, Int32(recordSeparator), packed.count - start).map { $0 - UnsafeMutableRawPointer(mutating: base) } ?? packed.count
                guard let us = memchr(base + start, Int32(unitSeparator), end - start) else { throw Damage(reason: "placemark names malformed") }
                let name = us - UnsafeMutableRawPointer(mutating: base) + 1
                if accepts(UnsafeRawBufferPointer(start: base + name, count: end - name)) { return true }
                if end == packed.count { return false }
                start = end + 1
            }
        }
    }
}
