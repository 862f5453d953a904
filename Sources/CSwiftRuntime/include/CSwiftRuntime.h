#ifndef CSWIFTRUNTIME_H
#define CSWIFTRUNTIME_H

/// The Swift runtime's try-retain, part of its stable C ABI (swift/Runtime/HeapObject.h):
/// takes a strong reference to `object` and returns it, unless the object has begun to be
/// freed, in which case nothing changes and the result is null. Swift has no spelling of
/// it; OpenCoreData's ObjectRegistry uses it to look up objects it does not own.
void *_Nullable swift_tryRetain(void *_Nonnull object);

/// An atomic load and store of one pointer, for TargetHandle (a reference that reads
/// `nil` once its target is freed): the target's deinit clears it, possibly on another thread
/// than the one reading it. Acquire and release, so the reader sees a cleared pointer as such.
static inline void *_Nullable ocd_loadPointer(void *_Nullable const *_Nonnull slot) {
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}
static inline void ocd_storePointer(void *_Nullable *_Nonnull slot, void *_Nullable value) {
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
}

#endif
