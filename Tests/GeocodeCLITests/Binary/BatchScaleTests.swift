import Foundation
@testable import GeocodeCLI
import ReverseGeocoder
import Testing

/// Order and completeness with real parallelism: 200,000 rows at --threads 2, each output row checked
/// against its input row's id and its own expected placemark.
@Suite struct BatchScaleTests {
    @Test func orderAndCompletenessAtTwoThreads() async throws {
        let generator = LargeCSV(rows: 200_000)
        let input = TemporaryDirectory.shared.uniqueURL("large", extension: "csv")
        try generator.write(to: input)
        let output = TemporaryDirectory.shared.uniqueURL("large-out", extension: "csv")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        let result = try await GeocodeBinary.run(["batch", input.path, "-o", output.path, "--threads", "2", "-q",
                                            "--fields", "country,province,city_code,district"])
        #expect(result.status == 0, "\(result.err.prefix(500))")

        // Read the output back with the (separately unit-tested) framer and field splitter.
        let fd = open(output.path, O_RDONLY)
        defer { close(fd) }
        let framer = CSVFramer(input: ByteInput(fd: fd, name: "out"), delimiter: UInt8(ascii: ","))
        var rows: [[String]] = []
        rows.reserveCapacity(generator.rows + 1)
        while let chunk = try framer.nextChunk(targetBytes: 1 << 20, maxRecords: 100_000) {
            chunk.bytes.withUnsafeBufferPointer { b in
                for record in chunk.records {
                    rows.append(CSVField.split(b, record.range, delimiter: UInt8(ascii: ",")).fields.map { $0.string(in: b) })
                }
            }
        }
        #expect(rows.first == ["id", "name", "lat", "lon", "country", "province", "city_code", "district", "geocode_error"])
        #expect(rows.count == generator.rows + 1)
        var mismatches = 0
        for i in 0..<min(generator.rows, rows.count - 1) {
            let row = rows[i + 1]
            let expected = generator.expectedPlacemark(i)
            let want = [String(i), expected?.country ?? "", expected?.administrativeArea ?? "",
                        expected?.localityCode ?? "", expected?.subLocality ?? ""]
            let got = [row[0]] + Array(row[4...7])
            let badOK = generator.isBad(i) ? row[8].hasPrefix("latitude \"x\(i)\" is not a number") : row[8].isEmpty
            if got != want || !badOK || row.count != 9 {
                mismatches += 1
                if mismatches <= 5 { Issue.record("row \(i): got \(row), want \(want)") }
            }
        }
        #expect(mismatches == 0)

        // Every bad row reported once, in order, on the physical line where it starts.
        let reported = result.err.split(separator: "\n").map(String.init)
        let expectedReports = (0..<generator.rows).filter(generator.isBad).map { i in
            "\(input.path):\(generator.line(of: i)): bad row: latitude \"x\(i)\" is not a number (column \"lat\")"
        }
        #expect(reported == expectedReports)
    }
}
