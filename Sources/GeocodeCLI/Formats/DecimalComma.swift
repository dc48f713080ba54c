/// Numbers written with a decimal comma (`48,8566`, `-0,5`), as European spreadsheets export them: when a
/// file proves it uses them. Parsing them is ``DecimalNumber/parse(_:decimalComma:)``'s.
enum DecimalComma {
    /// Whether the sampled values of `columns` prove a decimal comma: some hold one (`48,8566`) and
    /// none a decimal point. Whole numbers prove nothing either way.
    static func provenBy(_ sample: InputSample, rows: [Range<Int>], columns: [Int], delimiter: UInt8) -> Bool {
        var commas = 0
        for record in rows {
            let values = sample.bytes.withUnsafeBufferPointer { b in
                CSVField.split(b, record, delimiter: delimiter).fields.map { $0.string(in: b) }
            }
            for column in columns where column < values.count {
                let value = values[column]
                if value.contains(".") && DecimalNumber.parse(value) != nil { return false }
                if value.contains(",") && DecimalNumber.parse(value, decimalComma: true) != nil { commas += 1 }
            }
        }
        return commas > 0
    }
}
