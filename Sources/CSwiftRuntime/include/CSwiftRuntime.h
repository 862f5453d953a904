#ifndef CSWIFTRUNTIME_H
#define CSWIFTRUNTIME_H

/// The Swift runtime's try-retain, part of its stable C ABI (swift/Runtime/HeapObject.h):
/// takes a strong reference to `object` and returns it, unless the object has begun to be
/// freed, in which case nothing changes and the result is null. Swift has no spelling of
/// it; OpenCoreData's ObjectRegistry uses it to look up objects it does not own.
void *_Nullable swift_tryRetain(void *_Nonnull object);

#endif
