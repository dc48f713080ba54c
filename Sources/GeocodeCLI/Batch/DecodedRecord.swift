import GeoModel

/// One input record after a worker parsed it: what will be carried to the output, and the coordinate
/// (or why there is none).
struct DecodedRecord {
    enum Content {
        /// A delimited row's values.
        case fields([CSVValue])
        /// A delimited row carried byte for byte: no quote in it, no value that the output would quote,
        /// the output's delimiter, and `fields` values (at most the schema's columns; the rest are empty).
        /// Nearly every row of a real file: no per-field array, one copy of the input bytes.
        case plainRow(Range<Int>, fields: Int)
        /// An NDJSON object's members, each key once (DistinctMembers).
        case object([JSONMember])
        /// A GeoJSON feature's members; which one is `properties` (if any), that object's members (none
        /// when it is not an object), and the position's raw numbers. Each key once (DistinctMembers).
        case feature(members: [JSONMember], properties: Int?, propertyMembers: [JSONMember],
                     position: (lon: Range<Int>, lat: Range<Int>)?)
        /// A bare GeoJSON geometry (a document that is one Point): its raw text and position's numbers.
        case geometry(Range<Int>, position: (lon: Range<Int>, lat: Range<Int>)?)
        /// Text that is not even the right kind of JSON value: carried as a string so nothing is lost.
        case raw(Range<Int>)
    }

    var content: Content
    var coordinate: Coordinate?
    /// What the record's Point geometry has beyond its type and longitude and latitude, which only
    /// GeoJSON and GeoJSONSeq output carry (``RecordEncoder`` says it elsewhere). Empty for nearly every
    /// row. Declared here, its byte takes the padding after ``coordinate`` (Swift lays fields out in
    /// order), so the record is no longer than it was.
    var geometryExtras = GeometryExtras()
    /// Where the coordinate's numbers are written in the record, when they are plain text in the buffer:
    /// a new GeoJSON Point then repeats the user's digits instead of re-formatting the Double.
    var coordinateText: (lat: Range<Int>, lon: Range<Int>)?
    /// Why the row is bad; nil for a good row. A bad row has no coordinate.
    var error: String?
    /// Keys the record gives more than once (their last value was read, and is the one written): the
    /// worker warns once a run, naming the first such record. Empty (no allocation) for nearly every row.
    var repeatedKeys: [String] = []
    /// The paths of keys that objects nested in the record's values give more than once (`props.x.a`,
    /// ``DistinctJSON``): warned about with ``repeatedKeys``; when there are any, the record's nested
    /// values are written with each key once. Empty (no allocation) for nearly every row.
    var repeatedNestedKeys: [String] = []
    /// Whether a nested value of the record is written with ``DistinctJSON`` rather than as it came.
    var writesNestedDistinct: Bool { !repeatedNestedKeys.isEmpty }

    /// A Point geometry's members and position values that have no column or key in CSV, TSV and NDJSON
    /// output, by kind: each kind is said once a run.
    struct GeometryExtras: OptionSet {
        let rawValue: UInt8
        /// The geometry's `bbox` (RFC 7946 §5).
        static let bbox = GeometryExtras(rawValue: 1)
        /// A member besides `type`, `coordinates` and `bbox` (a foreign member, RFC 7946 §6.1).
        static let foreignMembers = GeometryExtras(rawValue: 2)
        /// A third position value (an altitude, RFC 7946 §3.1.1), or more.
        static let altitude = GeometryExtras(rawValue: 4)
    }
}
