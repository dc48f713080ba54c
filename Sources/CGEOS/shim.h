#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
