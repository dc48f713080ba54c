import GeoModel

/// The swapped-or-shifted-columns check: when not one of the first rows gives a place (each is out of
/// range, not a number, or in no polygon), try the columns the other way round (lon,lat) and shifted
/// (a headerless `id,lat,lon` read as lat=id), and warn once, naming the flags that would fix it, if one
/// of those readings finds places for most rows. Nothing is changed: the run goes on as asked.
///
/// NDJSON gets the same check over its first objects (the two keys the other way round, or a `--coords`
/// pair the other way round) and GeoJSON over its first features (positions written `[lat, lon]`, where
/// RFC 7946 says `[lon, lat]`; no flag reads them so, so the warning says to fix the file).
enum ColumnGuess {
    /// Rows looked at, at most.
    static let rows = 1000

    struct Reading {
        var schema: BatchSchema
        /// The flags that select it, as the user would type them.
        var flags: String
        var description: String
    }

    /// One record to look at: its bytes and where it lies in them.
    struct Record {
        var bytes: [UInt8]
        var range: Range<Int>
    }

    static func warning(sample: InputSample, schema: BatchSchema, lookup: any PlacemarkProvider) -> String? {
        guard schema.input.delimiter != nil else { return nil }
        return warning(records: sample.records.prefix(rows).map { Record(bytes: sample.bytes, range: $0) },
                       schema: schema, lookup: lookup)
    }

    /// The check over NDJSON objects or GeoJSON features read ahead (the setup's pending chunks).
    static func warning(json chunks: [RawChunk], schema: BatchSchema, lookup: any PlacemarkProvider) -> String? {
        guard schema.input == .ndjson || schema.input.isGeoJSON else { return nil }
        var records: [Record] = []
        for chunk in chunks {
            for span in chunk.records where records.count < rows { records.append(Record(bytes: chunk.bytes, range: span.range)) }
        }
        return warning(records: records, schema: schema, lookup: lookup)
    }

    private static func warning(records: [Record], schema: BatchSchema, lookup: any PlacemarkProvider) -> String? {
        guard !records.isEmpty else { return nil }
        guard found(records, schema, lookup, stopAtFirst: true) == 0 else { return nil }
        var best: (reading: Reading, found: Int)?
        for reading in alternatives(schema, records) {
            let n = found(records, reading.schema, lookup, stopAtFirst: false)
            if n * 2 >= records.count, n > (best?.found ?? 0) { best = (reading, n) }
        }
        guard let best else { return nil }
        let unit = schema.input.isGeoJSON ? "feature" : schema.input == .ndjson ? "object" : "row"
        let what = records.count == 1 ? "the first \(unit) gives" : "none of the first \(records.count) \(unit)s gives"
        let advice = schema.input.isGeoJSON
            ? "the file seems to write positions as [lat, lon], where GeoJSON's order is [lon, lat]; no option reads "
                + "them the other way: fix the file"
            : "if that is how the file is laid out, add \(best.reading.flags)"
        return "\(what) a place (out of range, not numbers, or in no polygon) with \(describe(schema)); "
            + "with \(best.reading.description), \(best.found) of \(records.count) do: " + advice
    }

    private static func describe(_ schema: BatchSchema) -> String {
        switch schema.input {
        case .geojson, .geojsonseq:
            return schema.lonFirst ? "the Point coordinates read as [lat, lon]" : "the Point coordinates read as [lon, lat] (RFC 7946)"
        case .ndjson:
            if let key = schema.coordsKey {
                return "key \"\(String(decoding: key, as: UTF8.self))\" read as \(schema.lonFirst ? "lon,lat" : "lat,lon")"
            }
            return "latitude from \(keyNames(schema.latKeys)) and longitude from \(keyNames(schema.lonKeys))"
        case .csv, .tsv:
            break
        }
        if let c = schema.coordsColumn { return "\(schema.columnLabel(c)) read as \(schema.lonFirst ? "lon,lat" : "lat,lon")" }
        return "latitude from \(schema.columnLabel(schema.latColumn)) and longitude from \(schema.columnLabel(schema.lonColumn))"
    }

    private static func keyNames(_ keys: [[UInt8]]) -> String {
        keys.count == 1 ? "key \"\(String(decoding: keys[0], as: UTF8.self))\"" : "the usual keys"
    }

    private static func alternatives(_ schema: BatchSchema, _ records: [Record]) -> [Reading] {
        var readings: [Reading] = []
        switch schema.input {
        case .geojson, .geojsonseq:
            var other = schema
            other.lonFirst = false
            other.geojsonLatFirst = true
            return [Reading(schema: other, flags: "", description: "the Point coordinates read as [lat, lon]")]
        case .ndjson:
            var other = schema
            if let key = schema.coordsKey {
                other.lonFirst.toggle()
                return [Reading(schema: other, flags: schema.lonFirst ? "nothing (drop --lon-first)" : "--lon-first",
                                description: "key \"\(String(decoding: key, as: UTF8.self))\" read as \(other.lonFirst ? "lon,lat" : "lat,lon")")]
            }
            // The keys the first object has: name them in the flags.
            let decoder = RecordDecoder(schema: schema)
            guard let first = records.first,
                  let keys = first.bytes.withUnsafeBufferPointer({ decoder.coordinateKeys($0, first.range) }) else { return [] }
            other.latKeys = [Array(keys.lon.utf8)]
            other.lonKeys = [Array(keys.lat.utf8)]
            other.latKeysAreDefaults = false
            other.lonKeysAreDefaults = false
            return [Reading(schema: other, flags: "--lat-col \(keys.lon) --lon-col \(keys.lat)",
                            description: "latitude from key \"\(keys.lon)\" and longitude from key \"\(keys.lat)\"")]
        case .csv, .tsv:
            break
        }
        if let c = schema.coordsColumn {
            var other = schema
            other.lonFirst.toggle()
            readings.append(Reading(schema: other, flags: schema.lonFirst ? "nothing (drop --lon-first)" : "--lon-first",
                                    description: "\(schema.columnLabel(c)) read as \(other.lonFirst ? "lon,lat" : "lat,lon")"))
            return readings
        }
        func column(_ i: Int) -> String {
            if let header = schema.header, i < header.count { return header[i].trimmingSpaces }
            return "\(i + 1)"
        }
        func reading(lat: Int, lon: Int) -> Reading {
            var other = schema
            other.latColumn = lat
            other.lonColumn = lon
            let isDefaultSwap = schema.header == nil && lat == 1 && lon == 0
            let flags = isDefaultSwap ? "--lon-first (or --lat-col 2 --lon-col 1)" : "--lat-col \(column(lat)) --lon-col \(column(lon))"
            return Reading(schema: other, flags: flags, description: describe(other))
        }
        readings.append(reading(lat: schema.lonColumn, lon: schema.latColumn))
        let count = schema.columnCount
        guard count >= 3, count <= 20 else { return readings }
        for first in 0..<(count - 1) {
            for (lat, lon) in [(first, first + 1), (first + 1, first)]
            where !(lat == schema.latColumn && lon == schema.lonColumn) && !(lat == schema.lonColumn && lon == schema.latColumn) {
                readings.append(reading(lat: lat, lon: lon))
            }
        }
        return readings
    }

    private static func found(_ records: [Record], _ schema: BatchSchema,
                              _ lookup: any PlacemarkProvider, stopAtFirst: Bool) -> Int {
        let decoder = RecordDecoder(schema: schema)
        var n = 0
        for record in records {
            // Found as the summary counts it: an administrative unit (a time zone alone answers at sea).
            guard let c = record.bytes.withUnsafeBufferPointer({ decoder.decode($0, record.range).coordinate }),
                  let placemark = try? lookup.placemark(for: c, datum: schema.datum),
                  placemark.hasAdministrativeUnit else { continue }
            n += 1
            if stopAtFirst { break }
        }
        return n
    }
}
