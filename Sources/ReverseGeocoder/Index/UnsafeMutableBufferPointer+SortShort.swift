extension UnsafeMutableBufferPointer {
    /// Sorts the elements by `before` (a strict weak order; equal elements keep their order), for the
    /// index build's many small sorts (a row's edges, a bucket of a ring's edge starts): up to 32 by
    /// insertion in place, where the library's sort paid a set-up larger than the work; longer ones by
    /// the library's sort (they may come in reverse, which insertion pays for quadratically).
    @inline(__always)
    func sortShort(by before: (Element, Element) -> Bool) {
        guard count > 1 else { return }
        guard count <= 32 else {
            var all = self
            all.sort(by: before)
            return
        }
        let p = baseAddress!
        for i in 1..<count {
            let v = p[i]
            var j = i
            while j > 0 && before(v, p[j - 1]) {
                p[j] = p[j - 1]
                j -= 1
            }
            p[j] = v
        }
    }
}
