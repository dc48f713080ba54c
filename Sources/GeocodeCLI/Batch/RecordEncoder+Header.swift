extension RecordEncoder {
    /// The input's header record byte for byte (` lat` stays ` lat`, not `" lat"`), then the added names,
    /// when the output has the input's delimiter; nil otherwise (the names are then written as fields).
    func headerRowAsRead() -> [UInt8]? {
        guard let raw = schema.headerRecord, schema.outputDelimiter == schema.delimiter, schema.output.delimiter != nil else {
            return nil
        }
        var out = raw
        for name in schema.addedNames {
            out.append(schema.outputDelimiter)
            CSVField.append(name, delimiter: schema.outputDelimiter, to: &out)
        }
        out += schema.lineEnding
        return out
    }
}
