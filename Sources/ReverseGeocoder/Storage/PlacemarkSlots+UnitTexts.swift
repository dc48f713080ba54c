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

        /// Per level (by rank): the slot index of its code and of its name among ``PlacemarkSlots/fields``.
        private static let codeField = AdminLevel.allCases.map { fields.firstIndex(of: .level($0, .code))! }
        private static let nameField = AdminLevel.allCases.map { fields.firstIndex(of: .level($0, .name))! }

        /// The bytes of text slot `i` of unit `u` (nil: no text).
        private func text(_ u: Int, _ i: Int) throws(Damage) -> UnsafeRawBufferPointer? {
            let at = u * slotsPerPlacemark + 2 * i
            guard at >= 0, at + 1 < slots.count else { throw Damage(reason: "placemark table size") }
            return try PlacemarkSlots.textBytes(at: at, slots: slots, bytes: bytes)
        }

        /// Unit `u`'s code at `level`, as stored.
        func code(_ u: Int, _ level: AdminLevel) throws(Damage) -> String? {
            try text(u, Self.codeField[level.rank]).map { String(decoding: $0, as: UTF8.self) }
        }

        /// Unit `u`'s name at `level`, as stored.
        func name(_ u: Int, _ level: AdminLevel) throws(Damage) -> String? {
            try text(u, Self.nameField[level.rank]).map { String(decoding: $0, as: UTF8.self) }
        }

        /// What names unit `u`'s names in other languages at `level`: a layer writes each distinct names
        /// text once, so units with the same key have the same names (a country's, under each of its
        /// localities). nil: none.
        func namesKey(_ u: Int, _ level: AdminLevel) -> UInt64? {
            let at = u * slotsPerPlacemark + 2 * (fields.count + level.rank)
            guard at >= 0, at + 1 < slots.count, slots[at + 1] != UInt32.max else { return nil }
            return PlacemarkSlots.word(at: at, slots: slots)
        }

        /// Whether `accepts` accepts one of unit `u`'s names in other languages at `level` (asked in the
        /// order stored, until one is).
        func hasName(_ u: Int, _ level: AdminLevel, _ accepts: (String) -> Bool) throws(Damage) -> Bool {
            guard let packed = try text(u, fields.count + level.rank) else { return false }
            // `tag US name RS tag US name ...`, as ``append(_:slots:text:pool:)`` writes it. Walked in place:
            // splitting made an array for every unit's names (6 % of a `track --region` start, perf).
            var start = packed.startIndex
            while true {
                let end = packed[start...].firstIndex(of: recordSeparator) ?? packed.endIndex
                guard let us = packed[start..<end].firstIndex(of: unitSeparator) else { throw Damage(reason: "placemark names malformed") }
                if accepts(String(decoding: UnsafeRawBufferPointer(rebasing: packed[(us + 1)..<end]), as: UTF8.self)) { return true }
                if end == packed.endIndex { return false }
                start = end + 1
            }
        }
    }
}
