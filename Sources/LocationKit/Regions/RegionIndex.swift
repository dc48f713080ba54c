import Foundation
import GeoModel

/// Circles by position: a hierarchy of latitude/longitude grids ("loose" multi-level grid).
///
/// Level k has square cells of `baseCell · 2^k` degrees. A circle is stored at the lowest level whose
/// cell is at least half as wide as the circle's bounding box (in degrees, widened in longitude by the
/// latitude), so it sits in at most 3 × 3 cells (4 columns across the antimeridian). (Half rather than
/// whole: 9 entries instead of 4 per circle, and about half the candidates per query.) A query looks at
/// the one cell containing the point at each level that holds any circle: about 20 dictionary lookups
/// at most, and the circles returned are only those whose box touches a cell around the point, not a
/// scan of all of them. Small circles stay on low levels and are found only near them; huge ones (or
/// ones around a pole) live on high levels with few neighbours.
///
/// The box covers `reach` metres (the radius), so every circle a point is inside of is among the
/// candidates for that point. (The exit margin needs no room here: the ``RegionBook`` evaluates the
/// circles the device is inside of on every fix anyway.)
struct CircleGrid: Sendable {
    /// 1/1024° ≈ 109 m of latitude: circles smaller than this still share a cell with few others.
    static let baseCell = 1.0 / 1024
    /// 1/1024 · 2^19 = 512° ≥ 360°: the top level is one cell per hemisphere row, holding everything.
    static let levels = 20
    static let earthRadius = 6_371_008.8
    /// A circle's box spans at most this many cells of its level.
    static let cellsPerSpan = 2.0

    private var cells: [UInt64: [Int]] = [:]
    private var cellsOf: [Int: [UInt64]] = [:]
    private var population = [Int](repeating: 0, count: CircleGrid.levels)

    var count: Int { cellsOf.count }

    /// Stores `handle` for the disc of `reach` metres around `center`. A handle already stored is moved.
    mutating func insert(_ handle: Int, center: Coordinate, reach: Double) {
        remove(handle)
        let box = Self.box(center: center, reach: reach)
        let span = max(box.latMax - box.latMin, box.fullLongitude ? 360 : box.lonMax - box.lonMin)
        var level = 0
        while level < Self.levels - 1 && Self.cellSize(level) * Self.cellsPerSpan < span { level += 1 }
        let size = Self.cellSize(level)
        let rows = Self.rowRange(box.latMin, box.latMax, size)
        var columns: [ClosedRange<Int>] = []
        if box.fullLongitude {
            columns = [0...(Self.columnCount(size) - 1)]
        } else if box.lonMax > 180 {
            columns = [Self.columnRange(box.lonMin, 180, size), Self.columnRange(-180, box.lonMax - 360, size)]
        } else if box.lonMin < -180 {
            columns = [Self.columnRange(box.lonMin + 360, 180, size), Self.columnRange(-180, box.lonMax, size)]
        } else {
            columns = [Self.columnRange(box.lonMin, box.lonMax, size)]
        }
        var keys = Set<UInt64>()
        for row in rows {
            for range in columns {
                for column in range { keys.insert(Self.key(level: level, row: row, column: column)) }
            }
        }
        for key in keys { cells[key, default: []].append(handle) }
        cellsOf[handle] = Array(keys)
        population[level] += 1
    }

    mutating func remove(_ handle: Int) {
        guard let keys = cellsOf.removeValue(forKey: handle) else { return }
        for key in keys {
            cells[key]?.removeAll { $0 == handle }
            if cells[key]?.isEmpty == true { cells[key] = nil }
        }
        population[Int(keys[0] >> 56)] -= 1
    }

    mutating func removeAll() {
        cells = [:]
        cellsOf = [:]
        population = [Int](repeating: 0, count: Self.levels)
    }

    /// Handles of circles whose box touches the cell of `point` on some level (each once).
    func candidates(near point: Coordinate, into result: inout [Int]) {
        for level in 0..<Self.levels where population[level] > 0 {
            let size = Self.cellSize(level)
            let row = Self.row(point.latitude, size)
            let column = Self.column(point.longitude, size)
            if let handles = cells[Self.key(level: level, row: row, column: column)] {
                result.append(contentsOf: handles)
            }
        }
    }

    // MARK: - Geometry

    struct Box {
        var latMin, latMax, lonMin, lonMax: Double
        var fullLongitude: Bool
    }

    /// The latitude/longitude box of every point within `reach` metres of `center` on the sphere
    /// `Coordinate.distance(to:)` uses, padded by a hair for rounding. Longitudes may run past ±180
    /// (the caller wraps them); `fullLongitude` when the cap contains a pole or is wider than the Earth.
    static func box(center: Coordinate, reach: Double) -> Box {
        let pad = 1e-6
        let δ = max(0, reach) / earthRadius
        if δ >= .pi {
            return Box(latMin: -90, latMax: 90, lonMin: -180, lonMax: 180, fullLongitude: true)
        }
        let δdeg = δ * 180 / .pi
        let latMin = max(-90, center.latitude - δdeg - pad)
        let latMax = min(90, center.latitude + δdeg + pad)
        let cosφ = cos(center.latitude * .pi / 180)
        if latMax >= 90 || latMin <= -90 || sin(δ) >= cosφ {
            return Box(latMin: latMin, latMax: latMax, lonMin: -180, lonMax: 180, fullLongitude: true)
        }
        // Widest longitude of a spherical cap of angular radius δ around latitude φ.
        let dλ = asin(min(1, sin(δ) / cosφ)) * 180 / .pi + pad
        if dλ >= 180 {
            return Box(latMin: latMin, latMax: latMax, lonMin: -180, lonMax: 180, fullLongitude: true)
        }
        return Box(latMin: latMin, latMax: latMax, lonMin: center.longitude - dλ, lonMax: center.longitude + dλ,
                   fullLongitude: false)
    }

    static func cellSize(_ level: Int) -> Double { baseCell * Double(1 << level) }

    private static func rowCount(_ size: Double) -> Int { Int((180 / size).rounded(.up)) }
    private static func columnCount(_ size: Double) -> Int { Int((360 / size).rounded(.up)) }

    private static func row(_ latitude: Double, _ size: Double) -> Int {
        min(rowCount(size) - 1, max(0, Int(((latitude + 90) / size).rounded(.down))))
    }

    private static func column(_ longitude: Double, _ size: Double) -> Int {
        min(columnCount(size) - 1, max(0, Int(((longitude + 180) / size).rounded(.down))))
    }

    private static func rowRange(_ low: Double, _ high: Double, _ size: Double) -> ClosedRange<Int> {
        row(low, size)...row(high, size)
    }

    private static func columnRange(_ low: Double, _ high: Double, _ size: Double) -> ClosedRange<Int> {
        column(low, size)...column(high, size)
    }

    private static func key(level: Int, row: Int, column: Int) -> UInt64 {
        UInt64(level) << 56 | UInt64(row) << 28 | UInt64(column)
    }
}

/// Administrative areas by the code or name they are recognised by: a placemark's codes at each level are
/// looked up directly (at most 10 dictionary lookups per fix), and its normalized names are compared with
/// the names wanted at their level, whichever of the two is fewer walked, never a scan of regions.
struct AdministrativeIndex: Sendable {
    private struct Key: Hashable, Sendable {
        var level: AdminLevel?
        var isName: Bool
        var value: String
    }

    /// Areas by code, at their level (`nil`: any level).
    private var codes: [Key: [Int]] = [:]
    /// Areas by normalized name, per level (`nil`: any level).
    private var names: [AdminLevel?: [String: [Int]]] = [:]
    private var keyOf: [Int: Key] = [:]
    /// How many areas are recognised by name: without any, a fix's names in other languages (up to a
    /// hundred and more per level) are not looked at, nor normalized.
    private(set) var nameAreas = 0

    var count: Int { keyOf.count }

    mutating func insert(_ handle: Int, area: AdministrativeArea) {
        remove(handle)
        let key: Key
        switch area.key {
        case .code(let code):
            key = Key(level: area.level, isName: false, value: code)
            codes[key, default: []].append(handle)
        case .name:
            key = Key(level: area.level, isName: true, value: area.normalizedKey)
            names[area.level, default: [:]][key.value, default: []].append(handle)
            nameAreas += 1
        }
        keyOf[handle] = key
    }

    mutating func remove(_ handle: Int) {
        guard let key = keyOf.removeValue(forKey: handle) else { return }
        if key.isName {
            nameAreas -= 1
            names[key.level]?[key.value]?.removeAll { $0 == handle }
            if names[key.level]?[key.value]?.isEmpty == true { names[key.level]?[key.value] = nil }
            if names[key.level]?.isEmpty == true { names[key.level] = nil }
        } else {
            codes[key]?.removeAll { $0 == handle }
            if codes[key]?.isEmpty == true { codes[key] = nil }
        }
    }

    mutating func removeAll() {
        codes = [:]
        names = [:]
        keyOf = [:]
        nameAreas = 0
    }

    /// Handles of areas whose code or name appears in the fix's placemark at their level (a handle may
    /// appear more than once; the country condition is not checked here). Names are the shown name and
    /// the unit's names in every other language (a region {"name": "Beijing"} fires in 北京市).
    func candidates(for fix: NormalizedPlacemark?, into result: inout [Int]) {
        guard var fix, !keyOf.isEmpty else { return }
        if nameAreas > 0 { fix.normalizeNames() }  // a no-op when the cache did it, as the book asks it to
        for level in AdminLevel.allCases {
            if let code = fix.placemark.code(at: level), !code.isEmpty {
                if let h = codes[Key(level: level, isName: false, value: code)] { result.append(contentsOf: h) }
                if let h = codes[Key(level: nil, isName: false, value: code)] { result.append(contentsOf: h) }
            }
            guard nameAreas > 0, let spelt = fix.names(at: level) else { continue }
            for scope in [level, nil] as [AdminLevel?] {
                guard let wanted = names[scope] else { continue }
                if wanted.count < spelt.count {
                    for (name, handles) in wanted where !name.isEmpty && spelt.contains(name) { result.append(contentsOf: handles) }
                } else {
                    for name in spelt where !name.isEmpty {
                        if let handles = wanted[name] { result.append(contentsOf: handles) }
                    }
                }
            }
        }
    }
}
