import Foundation
import Testing
@testable import ReverseGeocoder

/// GEOS reports an exception inside a predicate as the value 2. Read as "not 1", that is "outside": the
/// point silently gets another unit or none. These make real GEOS 3.11 raise and check that the engine
/// sees an error carrying GEOS's own message.
///
/// Two ways GEOS 3.11 raises on a prepared point predicate, found by trying (`GEOSPreparedContainsProperly_r`
/// and `GEOSPreparedIntersects_r` on a point):
/// - overlapping polygons in one collection: the relate graph meets a "side location conflict"
///   (TopologyException) for any point in the envelope;
/// - an infinite coordinate in both the polygon and the point: the ray-crossing count's orientation test
///   rejects non-finite numbers (IllegalArgumentException "orientationIndex encountered NaN/Inf").
struct GEOSExceptionTests {
    @Test func predicateExceptionIsAnErrorNotOutside() throws {
        let context = try GEOSContext()
        let overlapping = try Geometry.wkt("GEOMETRYCOLLECTION(POLYGON((0 0,10 0,10 10,0 10,0 0)),POLYGON((5 5,15 5,15 15,5 15,5 5)))",
                                           context: context)
        let prepared = try PreparedGeometry(overlapping, context: context)
        let point = QueryPoint(context: context)
        let error = #expect(throws: GEOSError.self) { try prepared.containsProperly(point.at(x: 7, y: 7)) }
        #expect(error?.operation == "prepared containsProperly")
        #expect(error?.message.contains("TopologyException") == true, "message: \(error?.message ?? "")")
        let covers = #expect(throws: GEOSError.self) { try prepared.covers(point.at(x: 12, y: 12)) }
        #expect(covers?.message.contains("side location conflict") == true, "message: \(covers?.message ?? "")")
        // The context's message was taken: the next failure does not repeat an old one.
        let plain = try Geometry.wkt("POLYGON((0 0,10 0,10 10,0 10,0 0))", context: context)
        #expect(try PreparedGeometry(plain, context: context).containsProperly(point.at(x: 5, y: 5)))
    }

    /// An infinite coordinate, straight at the prepared predicate (the query path cannot pass one: the
    /// coordinate is validated first, and an infinite box cannot be sorted into the R-tree).
    @Test func nonFiniteCoordinateRaises() throws {
        let context = try GEOSContext()
        let polygon = try Geometry.wkt("POLYGON((0 0,10 0,Inf 5,10 10,0 10,0 0))", context: context)
        let prepared = try PreparedGeometry(polygon, context: context)
        let point = QueryPoint(context: context)
        #expect(try prepared.containsProperly(point.at(x: 5, y: 5)))
        let error = #expect(throws: GEOSError.self) { try prepared.containsProperly(point.at(x: .infinity, y: 5)) }
        #expect(error?.message.contains("orientationIndex") == true, "message: \(error?.message ?? "")")
    }

    /// The same through the public query path (R-tree candidate, then GEOS): a geocoder over a real
    /// shapefile, whose calling thread's prepared geometry for the one polygon is seated beforehand with
    /// the overlapping collection above (the loader itself only ever makes valid polygons, on which
    /// GEOS 3.11 does not raise for a finite point). The query that used to answer "no place" throws,
    /// naming the layer.
    @Test func queryThrowsWhereItUsedToAnswerNoPlace() throws {
        let dir = TestShapefile.directory()
        let shp = TestShapefile.write(dir.appendingPathComponent("square"), fields: ["NAME", "CODE"],
                                      records: [.init(rings: [TestShapefile.box(0, 0, 10, 10)], ["NAME": "Square", "CODE": "SQ"])])
        let manifest = TestShapefile.manifest("square", file: shp)
        let coordinate = Coordinate(latitude: 7, longitude: 7)
        // Unseated, the point is in the square.
        let plain = try ReverseGeocoder(manifests: [(manifest, nil)], options: .init(cellSize: nil))
        #expect(try plain.placemark(for: coordinate)?.administrativeArea == "Square")

        let geocoder = try ReverseGeocoder(manifests: [(manifest, nil)], options: .init(cellSize: nil))
        let context = try geocoder.contexts.current()
        _ = try context.prepared(0) { (geos) throws(GEOSError) in
            try Geometry.wkt("GEOMETRYCOLLECTION(POLYGON((0 0,10 0,10 10,0 10,0 0)),POLYGON((5 5,15 5,15 15,5 15,5 5)))", context: geos)
        }
        let error = #expect(throws: GeocoderError.self) { try geocoder.placemark(for: coordinate) }
        guard case let .queryFailed(layer, reason)? = error else {
            Issue.record("expected queryFailed, got \(String(describing: error))")
            return
        }
        #expect(layer == shp.path)
        #expect(reason.contains("TopologyException"), "reason: \(reason)")
    }

    @Test func queryErrorNamesTheLayer() {
        let error = GeocoderError.queryFailed(layer: "Data/china/district.shp",
                                              reason: GEOSError(operation: "prepared containsProperly", message: "TopologyException: x").description)
        #expect(error.description == "Data/china/district.shp: query failed: GEOS: prepared containsProperly: TopologyException: x")
    }
}
