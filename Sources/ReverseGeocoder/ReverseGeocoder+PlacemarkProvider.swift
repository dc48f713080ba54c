/// The engine answers the one lookup protocol, once, here: `LocationManager`, the async `Geocoder` and the
/// CLI take any ``PlacemarkProvider`` and get this in the product.
extension ReverseGeocoder: PlacemarkProvider {}
