import GeocodeCLI
