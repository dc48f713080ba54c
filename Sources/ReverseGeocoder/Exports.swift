// `import ReverseGeocoder` alone gives a library user the values the engine speaks (Coordinate, Datum,
// Placemark, PlacemarkField, PlacemarkProvider, GeocoderError): they live in GeoModel so that modules
// which never load data (LocationSources, LocationKit) need no C libraries, but an app that uses the
// engine should not have to know that.
@_exported import GeoModel
