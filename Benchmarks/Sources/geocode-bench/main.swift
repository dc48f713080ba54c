// geocode-bench: drives the engine on the benchmark inputs. See Benchmarks/README.md.
import ReverseGeocoder
print("geocode-bench: not implemented yet")
