import Foundation

/// Checks the structure of a `.shp`/`.shx`/`.dbf` triple before shapelib reads it.
///
/// shapelib trusts headers and offsets; a truncated or corrupt file can make it read past the end or
/// allocate absurd amounts. Everything it will rely on is checked here first, so bad files become a
/// ``GeocoderError`` naming the file and record instead of a crash.
struct ShapefileValidator {
    /// Shape type codes this engine reads (ESRI Shapefile Technical Description, table 1).
    static let polygonTypes: Set<Int32> = [5, 15, 25]
    static let typeNames: [Int32: String] = [
        0: "Null", 1: "Point", 3: "PolyLine", 5: "Polygon", 8: "MultiPoint", 11: "PointZ", 13: "PolyLineZ",
        15: "PolygonZ", 18: "MultiPointZ", 21: "PointM", 23: "PolyLineM", 25: "PolygonM", 28: "MultiPointM",
        31: "MultiPatch",
    ]

    struct Result {
        var recordCount: Int
        var shapeType: Int32
    }

    static func validate(shp: URL, shx: URL, dbf: URL) throws -> Result {
        let shpData = try read(shp)
        let shxData = try read(shx)
        let dbfData = try read(dbf)
        let shpName = shp.lastPathComponent, shxName = shx.lastPathComponent, dbfName = dbf.lastPathComponent

        // Main file header.
        guard shpData.count >= 100 else {
            throw GeocoderError.corrupt(file: shpName, record: nil, reason: "truncated header (\(shpData.count) bytes, need 100)")
        }
        guard shpData.beInt32(at: 0) == 9994 else {
            throw GeocoderError.corrupt(file: shpName, record: nil, reason: "not a shapefile (bad file code)")
        }
        let declaredLength = Int(shpData.beInt32(at: 24)) * 2
        if declaredLength > shpData.count {
            throw GeocoderError.corrupt(file: shpName, record: nil,
                                        reason: "truncated: header says \(declaredLength) bytes, file has \(shpData.count)")
        }
        let shapeType = shpData.leInt32(at: 32)
        guard polygonTypes.contains(shapeType) else {
            throw GeocoderError.notPolygonShapefile(file: shpName, shapeType: typeNames[shapeType] ?? "code \(shapeType)")
        }

        // Index file: 100-byte header then 8 bytes per record.
        guard shxData.count >= 100, shxData.beInt32(at: 0) == 9994 else {
            throw GeocoderError.corrupt(file: shxName, record: nil, reason: "truncated or not a shapefile index")
        }
        guard (shxData.count - 100) % 8 == 0 else {
            throw GeocoderError.corrupt(file: shxName, record: nil, reason: "truncated: size \(shxData.count) is not 100 + 8·n")
        }
        let count = (shxData.count - 100) / 8
        // shapelib takes the record count from this header field, not from the file's size: a header that
        // disagrees with the size would hide records (or make shapelib refuse the file) with no clear error.
        let declaredIndexLength = Int(shxData.beInt32(at: 24)) * 2
        guard declaredIndexLength == shxData.count else {
            throw GeocoderError.corrupt(file: shxName, record: nil,
                                        reason: "header says \(declaredIndexLength) bytes (\(max(0, (declaredIndexLength - 100) / 8)) records), file has \(shxData.count) (\(count) records)")
        }

        // Every record the index points at must lie inside the main file and be a well-formed polygon.
        for i in 0..<count {
            let offset = Int(shxData.beInt32(at: 100 + 8 * i)) * 2
            let length = Int(shxData.beInt32(at: 104 + 8 * i)) * 2
            guard offset >= 100, length >= 4, offset + 8 + length <= shpData.count else {
                throw GeocoderError.corrupt(file: shpName, record: i,
                                            reason: "index points outside the file (offset \(offset), length \(length); truncated?)")
            }
            guard Int(shpData.beInt32(at: offset + 4)) * 2 == length else {
                throw GeocoderError.corrupt(file: shpName, record: i, reason: "record length disagrees with the .shx index")
            }
            let content = offset + 8
            let type = shpData.leInt32(at: content)
            if type == 0 { continue }  // Null shape: skipped and counted by the loader.
            guard type == shapeType else {
                throw GeocoderError.corrupt(file: shpName, record: i, reason: "shape type \(type) in a file of type \(shapeType)")
            }
            guard length >= 44 else {
                throw GeocoderError.corrupt(file: shpName, record: i, reason: "record too short for a polygon")
            }
            let parts = Int(shpData.leInt32(at: content + 36)), points = Int(shpData.leInt32(at: content + 40))
            if parts > 0 && points == 0 {
                // shapelib refuses such a record ("could not read"): say what is wrong with it instead.
                throw GeocoderError.corrupt(file: shpName, record: i, reason: "\(parts) parts but no points")
            }
            guard parts >= 0, points >= 0, parts <= points || points == 0,
                  44 + 4 * parts + 16 * points <= length else {
                throw GeocoderError.corrupt(file: shpName, record: i,
                                            reason: "\(parts) parts / \(points) points do not fit in \(length) bytes")
            }
            var previous = -1
            for p in 0..<parts {
                let start = Int(shpData.leInt32(at: content + 44 + 4 * p))
                guard start > previous, start < points || points == 0, p > 0 || start == 0 else {
                    throw GeocoderError.corrupt(file: shpName, record: i, reason: "part \(p) starts at point \(start) (out of order or out of range)")
                }
                previous = start
            }
        }

        // dBase header: record count, header length, record length; records must all be present.
        guard dbfData.count >= 32 else {
            throw GeocoderError.corrupt(file: dbfName, record: nil, reason: "truncated header")
        }
        let dbfCount = Int(dbfData.leUInt32(at: 4))
        let headerLength = Int(dbfData.leUInt16(at: 8)), recordLength = Int(dbfData.leUInt16(at: 10))
        guard headerLength >= 33, recordLength >= 1, headerLength <= dbfData.count else {
            throw GeocoderError.corrupt(file: dbfName, record: nil, reason: "bad header (header \(headerLength) bytes, records \(recordLength) bytes)")
        }
        if headerLength + dbfCount * recordLength > dbfData.count {
            let present = (dbfData.count - headerLength) / recordLength
            throw GeocoderError.corrupt(file: dbfName, record: present,
                                        reason: "truncated: header says \(dbfCount) records, file holds \(present)")
        }
        guard dbfCount == count else {
            throw GeocoderError.recordCountMismatch(shp: shpName, shpCount: count, dbf: dbfName, dbfCount: dbfCount)
        }
        return Result(recordCount: count, shapeType: shapeType)
    }

    /// The DBF language driver byte (offset 29), which names the code page when there is no `.cpg`.
    static func languageDriver(dbf: URL) -> UInt8? {
        guard let h = FileHandle(forReadingAtPath: dbf.path) else { return nil }
        defer { try? h.close() }
        guard let d = try? h.read(upToCount: 32), d.count >= 30 else { return nil }
        return d[d.startIndex + 29]
    }

    private static func read(_ url: URL) throws -> Data {
        do {
            return try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw GeocoderError.cannotOpen(file: url.lastPathComponent, reason: (error as NSError).localizedDescription)
        }
    }
}

extension Data {
    func beInt32(at i: Int) -> Int32 {
        let b = startIndex + i
        return Int32(bitPattern: UInt32(self[b]) << 24 | UInt32(self[b + 1]) << 16 | UInt32(self[b + 2]) << 8 | UInt32(self[b + 3]))
    }
    func leInt32(at i: Int) -> Int32 { Int32(bitPattern: leUInt32(at: i)) }
    func leUInt32(at i: Int) -> UInt32 {
        let b = startIndex + i
        return UInt32(self[b]) | UInt32(self[b + 1]) << 8 | UInt32(self[b + 2]) << 16 | UInt32(self[b + 3]) << 24
    }
    func leUInt16(at i: Int) -> UInt16 {
        let b = startIndex + i
        return UInt16(self[b]) | UInt16(self[b + 1]) << 8
    }
}
