// System zlib (Debian: zlib1g-dev), used by LiftImage for PNG's deflate streams.
#include <zlib.h>
