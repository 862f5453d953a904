// Declarations only (include/CSwiftRuntime.h): the functions live in the Swift runtime,
// which every Swift program links. A C target needs one source file.
#include "CSwiftRuntime.h"
