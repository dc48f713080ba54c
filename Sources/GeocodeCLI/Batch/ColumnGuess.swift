import GeoModel

/// The swapped-or-shifted-columns check: when not one of the first rows gives a place (each is out of
/// range, not a number, or in no polygon), try the columns the other way round (lon,lat) and shifted
/// (a headerless `id,lat,lon` read as lat=id), and warn once, naming the flags that would fix it, if one
/// of those readings finds places for most rows. Nothing is changed: the run goes on as asked.
enum ColumnGuess {
    /// Rows looked at, at most.
    static let rows = 1000

    struct Reading {
        var schema: BatchSchema
        /// The flags that select it, as the user would type them.
        var flags: String
        var description: String
    }

    static func warning(sample: InputSample, schema: BatchSchema, lookup: any PlacemarkProvider) -> String? {
        let records = Array(sample.records.prefix(rows))
        guard !records.isEmpty, schema.input.delimiter != nil else { return nil }
        guard found(sample, records, schema, lookup, stopAtFirst: true) == 0 else { return nil }
        var best: (reading: Reading, found: Int)?
        for reading in alternatives(schema) {
            let n = found(sample, records, reading.schema, lookup, stopAtFirst: false)
            if n * 2 >= records.count, n > (best?.found ?? 0) { best = (reading, n) }
        }
        guard let best else { return nil }
        let what = records.count == 1 ? "the first row gives" : "none of the first \(records.count) rows gives"
        return "\(what) a place (out of range, not numbers, or in no polygon) with \(describe(schema)); "
            + "with \(best.reading.description), \(best.found) of \(records.count) do: "
            + "if that is how the file is laid out, add \(best.reading.flags)"
    }

    private static func describe(_ schema: BatchSchema) -> String {
        if let c = schema.coordsColumn { return "\(schema.columnLabel(c)) read as \(schema.lonFirst ? "lon,lat" : "lat,lon")" }
        return "latitude from \(schema.columnLabel(schema.latColumn)) and longitude from \(schema.columnLabel(schema.lonColumn))"
    }

    private static func alternatives(_ schema: BatchSchema) -> [Reading] {
        var readings: [Reading] = []
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

    private static func found(_ sample: InputSample, _ records: [Range<Int>], _ schema: BatchSchema,
                              _ lookup: any PlacemarkProvider, stopAtFirst: Bool) -> Int {
        let decoder = RecordDecoder(schema: schema)
        var n = 0
        sample.bytes.withUnsafeBufferPointer { b in
            for record in records {
                guard let c = decoder.decode(b, record).coordinate,
                      (try? lookup.placemark(for: c, datum: schema.datum)) != nil else { continue }
                n += 1
                if stopAtFirst { return }
            }
        }
        return n
    }
}
