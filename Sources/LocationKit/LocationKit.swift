// LocationKit: the CoreLocation-style LocationManager. See issue 4.
