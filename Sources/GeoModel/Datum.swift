#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The geodetic datum a ``Coordinate`` is expressed in.
///
/// - `wgs84`: what GPS receivers, GPX files and most of the world's maps use.
/// - `gcj02`: the obfuscated datum required for maps published in mainland China (Amap, Tencent, Apple
///   Maps in China). Offsets from WGS-84 of 100–700 m inside China; identical to WGS-84 outside.
/// - `bd09`: Baidu's further offset applied on top of GCJ-02.
public enum Datum: String, Sendable, Codable, CaseIterable {
    case wgs84
    case gcj02
    case bd09

    /// Parses the names users type: `wgs84`, `WGS-84`, `gcj02`, `GCJ-02`, `bd09`, `BD-09` (case-insensitive).
    public init?(name: String) {
        let key = name.lowercased().filter { $0.isLetter || $0.isNumber }
        switch key {
        case "wgs84", "epsg4326", "gps": self = .wgs84
        case "gcj02", "gcj", "mars": self = .gcj02
        case "bd09", "bd", "baidu", "bd09ll": self = .bd09
        default: return nil
        }
    }

    /// Converts `coordinate` from datum `from` to datum `to`.
    ///
    /// GCJ-02 is defined only inside China; outside ``DatumTransform/isOutsideChina(_:)`` the forward
    /// and inverse GCJ steps are the identity. The GCJ-02 → WGS-84 inverse is iterative and good to
    /// better than 1 mm (a one-step inverse is off by up to ~5 m).
    public static func convert(_ coordinate: Coordinate, from: Datum, to: Datum) -> Coordinate {
        if from == to { return coordinate }
        // Route every conversion through GCJ-02, the hub both other datums are defined against.
        let gcj: Coordinate
        switch from {
        case .wgs84: gcj = DatumTransform.wgs84ToGCJ02(coordinate)
        case .gcj02: gcj = coordinate
        case .bd09: gcj = DatumTransform.bd09ToGCJ02(coordinate)
        }
        switch to {
        case .wgs84: return DatumTransform.gcj02ToWGS84(gcj)
        case .gcj02: return gcj
        case .bd09: return DatumTransform.gcj02ToBD09(gcj)
        }
    }
}

/// The published GCJ-02 and BD-09 formulas (China's GB/T "mars" offset and Baidu's offset on top of it).
public enum DatumTransform {
    // Krasovsky 1940 ellipsoid, which the GCJ-02 formula is defined on.
    package static let a = 6_378_245.0
    package static let ee = 0.006_693_421_622_965_943_23
    // Baidu's constant. Note: x_pi = π·3000/180; some public code uses plain π here, which is wrong.
    static let xPi = Double.pi * 3000.0 / 180.0

    /// The rectangle outside which GCJ-02 is the identity by the formula's own convention. Coarse: it
    /// includes parts of neighbouring countries; the engine refines this with the loaded China boundary.
    public static func isOutsideChina(_ c: Coordinate) -> Bool {
        c.longitude < 72.004 || c.longitude > 137.8347 || c.latitude < 0.8293 || c.latitude > 55.8271
    }

    /// WGS-84 → GCJ-02 (identity outside China's rectangle).
    public static func wgs84ToGCJ02(_ c: Coordinate) -> Coordinate {
        if isOutsideChina(c) { return c }
        let (dLat, dLon) = offset(c)
        return Coordinate(latitude: c.latitude + dLat, longitude: c.longitude + dLon)
    }

    /// GCJ-02 → WGS-84 by fixed-point iteration on the forward formula, to below 1e-9° (0.1 mm).
    public static func gcj02ToWGS84(_ c: Coordinate) -> Coordinate {
        if isOutsideChina(c) { return c }
        var w = c
        for _ in 0..<30 {
            let g = wgs84ToGCJ02(w)
            let eLat = g.latitude - c.latitude, eLon = g.longitude - c.longitude
            w.latitude -= eLat
            w.longitude -= eLon
            if abs(eLat) < 1e-10 && abs(eLon) < 1e-10 { break }
        }
        return w
    }

    /// GCJ-02 → BD-09.
    public static func gcj02ToBD09(_ c: Coordinate) -> Coordinate {
        let x = c.longitude, y = c.latitude
        let z = (x * x + y * y).squareRoot() + 0.000_02 * sin(y * xPi)
        let theta = atan2(y, x) + 0.000_003 * cos(x * xPi)
        return onTheGlobe(latitude: z * sin(theta) + 0.006, longitude: z * cos(theta) + 0.0065)
    }

    /// BD-09 → GCJ-02.
    public static func bd09ToGCJ02(_ c: Coordinate) -> Coordinate {
        let x = c.longitude - 0.0065, y = c.latitude - 0.006
        let z = (x * x + y * y).squareRoot() - 0.000_02 * sin(y * xPi)
        let theta = atan2(y, x) - 0.000_003 * cos(x * xPi)
        return onTheGlobe(latitude: z * sin(theta), longitude: z * cos(theta))
    }

    /// Baidu's offset is a plane shift of some 0.006°, so a valid point within that of ±180° or a pole
    /// came out past it, an invalid coordinate that no dataset answered (QA: `--datum bd09 0 -179.999`
    /// had no time zone, where WGS-84 has one). Across the antimeridian the point is on the other side;
    /// past a pole it is at the pole.
    private static func onTheGlobe(latitude: Double, longitude: Double) -> Coordinate {
        let lon = longitude > 180 ? longitude - 360 : longitude < -180 ? longitude + 360 : longitude
        return Coordinate(latitude: min(90, max(-90, latitude)), longitude: lon)
    }

    /// The GCJ-02 offset (degrees) at a WGS-84 point inside China.
    ///
    /// The published formula, with its sines shared: sin(2xπ) and sin(6xπ) come from sin(xπ) and cos(xπ)
    /// by the double- and triple-angle identities, and the latitude's sine is taken once. Eleven trig
    /// calls instead of fifteen; this runs on every WGS-84 query against a GCJ-02 dataset, where it
    /// was most of the query. The results agree with the formula as written to within a few ulps of
    /// the offset (about 1e-18°), far below a coordinate's own rounding.
    package static func offset(_ c: Coordinate) -> (Double, Double) {
        let x = c.longitude - 105.0, y = c.latitude - 35.0
        let sx = sin(x * .pi), cx = cos(x * .pi)
        let s2x = 2.0 * sx * cx
        let s6x = s2x * (3.0 - 4.0 * s2x * s2x)
        let common = (20.0 * s6x + 20.0 * s2x) * 2.0 / 3.0
        var dLat = -100.0 + 2.0 * x + 3.0 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * abs(x).squareRoot()
        dLat += common
        dLat += (20.0 * sin(y * .pi) + 40.0 * sin(y / 3.0 * .pi)) * 2.0 / 3.0
        dLat += (160.0 * sin(y / 12.0 * .pi) + 320.0 * sin(y * .pi / 30.0)) * 2.0 / 3.0
        var dLon = 300.0 + x + 2.0 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * abs(x).squareRoot()
        dLon += common
        dLon += (20.0 * sx + 40.0 * sin(x / 3.0 * .pi)) * 2.0 / 3.0
        dLon += (150.0 * sin(x / 12.0 * .pi) + 300.0 * sin(x / 30.0 * .pi)) * 2.0 / 3.0
        let radLat = c.latitude / 180.0 * .pi
        let sinLat = sin(radLat)
        let magic = 1 - ee * sinLat * sinLat
        let sqrtMagic = magic.squareRoot()
        dLat = (dLat * 180.0) / ((a * (1 - ee)) / (magic * sqrtMagic) * .pi)
        dLon = (dLon * 180.0) / (a / sqrtMagic * cos(radLat) * .pi)
        return (dLat, dLon)
    }

    /// The formula exactly as published (fifteen trig calls), kept as the tests' reference for ``offset(_:)``.
    package static func referenceOffset(_ c: Coordinate) -> (Double, Double) {
        let x = c.longitude - 105.0, y = c.latitude - 35.0
        var dLat = -100.0 + 2.0 * x + 3.0 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * abs(x).squareRoot()
        dLat += (20.0 * sin(6.0 * x * .pi) + 20.0 * sin(2.0 * x * .pi)) * 2.0 / 3.0
        dLat += (20.0 * sin(y * .pi) + 40.0 * sin(y / 3.0 * .pi)) * 2.0 / 3.0
        dLat += (160.0 * sin(y / 12.0 * .pi) + 320.0 * sin(y * .pi / 30.0)) * 2.0 / 3.0
        var dLon = 300.0 + x + 2.0 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * abs(x).squareRoot()
        dLon += (20.0 * sin(6.0 * x * .pi) + 20.0 * sin(2.0 * x * .pi)) * 2.0 / 3.0
        dLon += (20.0 * sin(x * .pi) + 40.0 * sin(x / 3.0 * .pi)) * 2.0 / 3.0
        dLon += (150.0 * sin(x / 12.0 * .pi) + 300.0 * sin(x / 30.0 * .pi)) * 2.0 / 3.0
        let radLat = c.latitude / 180.0 * .pi
        let magic = 1 - ee * sin(radLat) * sin(radLat)
        let sqrtMagic = magic.squareRoot()
        dLat = (dLat * 180.0) / ((a * (1 - ee)) / (magic * sqrtMagic) * .pi)
        dLon = (dLon * 180.0) / (a / sqrtMagic * cos(radLat) * .pi)
        return (dLat, dLon)
    }
}
