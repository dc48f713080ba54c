/// A dataset loaded from its index cache for a few queries (``ReverseGeocoder/Options/verifyOnFirstUse``):
/// what each query must prove before it reads the dataset's WGS-84 grid, its empty mask and its layers
/// (see ``LayerFirstUse``). Nil on a dataset checked whole at load or built from its shapefiles.
final class DatasetFirstUse: Sendable {
    /// The cache file, removed when damage is found so the next start rebuilds it.
    let file: String
    let verifier: CacheVerifier
    let grid: LayerFirstUse.Array<UInt32>?
    let mask: LayerFirstUse.Array<UInt64>?
    /// Finest first, as the dataset's layers.
    let layers: [LayerFirstUse]

    init(file: String, verifier: CacheVerifier, grid: LayerFirstUse.Array<UInt32>?, mask: LayerFirstUse.Array<UInt64>?,
         layers: [LayerFirstUse]) {
        self.file = file
        self.verifier = verifier
        self.grid = grid
        self.mask = mask
        self.layers = layers
    }

    typealias Damage = IndexCache.CacheDamage

    /// Proves the entry ``WGS84Grid/lookup(x:y:)`` reads for (x, y) (and that a unit it names exists).
    func prepareGrid(_ g: WGS84Grid, x: Double, y: Double) -> Damage? {
        guard let grid else { return Damage(reason: "WGS-84 grid missing") }
        let fx = (x - g.originX) / g.cell, fy = (y - g.originY) / g.cell
        guard fx >= 0, fy >= 0, fx < Double(g.columns), fy < Double(g.rows) else { return nil }
        let i = Int(fy) * g.columns + Int(fx)
        guard i < grid.count else { return Damage(reason: "WGS-84 grid size") }
        do { try verifier.verify(grid.region, UInt32.self, i..<(i + 1)) } catch { return error }
        let e = WGS84GridEntry(rawValue: grid.buffer[i])
        if e.isUnit, !(e.layer >= 0 && e.layer < layers.count && e.unit < layers[e.layer].units) {
            return Damage(reason: "WGS-84 grid entry")
        }
        return nil
    }

    /// Proves the word ``EmptyMask/isEmpty(x:y:)`` reads for (x, y).
    func prepareMask(_ m: EmptyMask, x: Double, y: Double) -> Damage? {
        guard let mask else { return Damage(reason: "empty mask missing") }
        let fx = (x - m.originX) * m.scaleX, fy = (y - m.originY) * m.scaleY
        guard fx >= 0, fy >= 0, fx < Double(EmptyMask.side), fy < Double(EmptyMask.side) else { return nil }
        let word = ((Int(fy) << 10) | Int(fx)) >> 6
        do { try verifier.verify(mask.region, UInt64.self, word..<(word + 1)) } catch { return error }
        return nil
    }

    /// Proves what layer `l`'s locate reads for (x, y).
    func prepareLayer(_ l: Int, _ layer: LayerIndex, x: Double, y: Double) -> Damage? {
        do { try layers[l].prepareLocate(x: x, y: y, cells: layer.cells, wrapped: layer.hasWrappedParts) } catch { return error }
        return nil
    }

    /// Decodes (once) the placemark the answer returns.
    func preparePlacemark(layer l: Int, unit: Int) -> Damage? {
        do { try layers[l].preparePlacemark(unit) } catch { return error }
        return nil
    }
}
