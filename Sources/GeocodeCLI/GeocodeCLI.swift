// GeocodeCLI: argument parsing, batch formats and commands of the `geocode` tool.
