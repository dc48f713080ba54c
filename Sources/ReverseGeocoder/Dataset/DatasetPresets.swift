import Foundation

/// Manifests for the boundary files people already have, so they can be loaded without writing JSON.
extension DatasetManifest {
    /// Natural Earth admin-0 (countries) and/or admin-1 (states/provinces) shapefiles, as published by
    /// naturalearthdata.com or converted from QGIS's `world_map.gpkg`. Paths may be absolute.
    public static func naturalEarth(admin0: String? = nil, admin1: String? = nil, name: String = "natural-earth",
                                    priority: Int = 100) -> DatasetManifest {
        // Natural Earth writes "-99" where ISO has no code (France and Norway in older releases); the _EH
        // ("eh" = ISO with exceptions handled) field fills those, so it is tried first.
        let country = Fields(name: ["ADMIN", "NAME", "NAME_LONG"], code: ["ISO_A2_EH", "ISO_A2", "ADM0_A3", "ISO_A3"])
        let countryOfProvince = Fields(name: ["admin", "geonunit"], code: ["iso_a2", "adm0_a3"])
        let province = Fields(name: ["name", "name_en", "gn_name", "woe_name"], code: ["iso_3166_2", "adm1_code", "code_hasc", "fips"])
        var layers: [Layer] = []
        if let admin1 {
            layers.append(Layer(file: admin1, level: .province, fields: [.province: province, .country: countryOfProvince]))
        }
        if let admin0 {
            layers.append(Layer(file: admin0, level: .country, fields: [.country: country]))
        }
        return DatasetManifest(name: name, title: "Natural Earth administrative boundaries", datum: .wgs84, priority: priority,
                               source: "Natural Earth", license: "public domain",
                               municipalityCodes: ["CN-11", "CN-12", "CN-31", "CN-50", "CN-BJ", "CN-TJ", "CN-SH", "CN-CQ"],
                               layers: layers)
    }

    /// GADM shapefiles (`gadm41_XXX_N.shp`), one per level; `files[n]` is the file of GADM level n.
    /// GADM level 0 is the country, 1 the province/state, 2 the city/prefecture, 3 the district/county.
    public static func gadm(files: [Int: String], name: String = "gadm", priority: Int = 50) -> DatasetManifest {
        let levels: [Int: AdminLevel] = [0: .country, 1: .province, 2: .city, 3: .district]
        var layers: [Layer] = []
        for (n, file) in files.sorted(by: { $0.key > $1.key }) {
            guard let level = levels[n] else { continue }
            var fields: [AdminLevel: Fields] = [.country: Fields(name: ["COUNTRY", "NAME_0"], code: ["GID_0"])]
            for k in 1...3 where k <= n {
                fields[levels[k]!] = Fields(name: ["NAME_\(k)"], code: ["HASC_\(k)", "GID_\(k)", "CC_\(k)"])
            }
            layers.append(Layer(file: file, level: level, fields: fields))
        }
        return DatasetManifest(name: name, title: "GADM administrative areas", datum: .wgs84, priority: priority,
                               source: "GADM", license: "GADM licence (non-commercial)", layers: layers)
    }

    /// Picks a preset from a shapefile's DBF field names: GADM (`GID_0`, `NAME_n`), Natural Earth admin-1
    /// (`adm0_a3` with `name`) or admin-0 (`ISO_A2`/`ADM0_A3` only). Nil when the fields match none.
    public static func detect(shapefile url: URL) throws -> DatasetManifest? {
        let reader = try ShapefileReader(url: url)
        let has = { (f: String) in reader.fieldIndex(f) != nil }
        if has("GID_0") {
            let level = (1...3).reversed().first { has("NAME_\($0)") } ?? 0
            return gadm(files: [level: url.path], name: url.deletingPathExtension().lastPathComponent)
        }
        if has("adm0_a3") && has("name") {
            return naturalEarth(admin1: url.path, name: url.deletingPathExtension().lastPathComponent)
        }
        if has("ISO_A2") || has("ADM0_A3") || has("ISO_A3") {
            return naturalEarth(admin0: url.path, name: url.deletingPathExtension().lastPathComponent)
        }
        return nil
    }
}
