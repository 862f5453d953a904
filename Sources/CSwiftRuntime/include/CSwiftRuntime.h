#ifndef CSWIFTRUNTIME_H
#define CSWIFTRUNTIME_H

/// The Swift runtime's try-retain, part of its stable C ABI (swift/Runtime/HeapObject.h):
/// takes a strong reference to `object` and returns it, unless the object has begun to be
/// freed, in which case nothing changes and the result is null. Swift has no spelling of
/// it; OpenCoreData's ObjectRegistry uses it to look up objects it does not own.
void *_Nullable swift_tryRetain(void *_Nonnull object);

#include <sched.h>

/// A lock of one int, for TargetHandle (a reference that reads `nil` once its target is
/// freed). A reader holds it while it takes a strong reference to the target, and the
/// target's deinit holds it while it clears the handle, possibly on another thread: so a
/// reader never touches a target whose memory is being freed. Held for a few instructions,
/// so waiting spins (yielding the processor).
static inline void ocd_lock(int *_Nonnull lock) {
    while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(lock, __ATOMIC_RELAXED)) { sched_yield(); }
    }
}
static inline void ocd_unlock(int *_Nonnull lock) {
    __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

#include <stdint.h>

/// Adds 1 to `counter` atomically and returns the new value: a sequence number any thread
/// may take (temporary object IDs, made for every fault), without a lock.
static inline uint64_t ocd_increment(uint64_t *_Nonnull counter) {
    return __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

/// Reads `word` atomically, seeing everything the thread that stored the value wrote before
/// it (acquire): for values read far more often than written (AtomicWord in OpenCoreData),
/// so that reading takes no lock.
static inline intptr_t ocd_load(const intptr_t *_Nonnull word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/// Stores `value` in `word` atomically, publishing everything this thread wrote before it
/// to the threads that load it with ocd_load (release).
static inline void ocd_store(intptr_t *_Nonnull word, intptr_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

#endif
