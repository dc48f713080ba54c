#ifndef GEOCODE_HOT_PATH_H
#define GEOCODE_HOT_PATH_H

#include <stdint.h>

// Two things the query path needs that Swift cannot say as cheaply. Each costs a found point's query
// some 20 instructions in Swift (callgrind), out of about 400.

/// `x` rounded toward zero, as Swift's `Int(x)` gives it, without Swift's check that `x` is finite and
/// within Int's range: one instruction (cvttsd2si) instead of five and two branches. The query path
/// converts each point's grid position this way, after its own guard has proved 0 <= x <= 2^20; call it
/// only so (outside Int's range the result is meaningless, not a trap).
static inline long hot_path_truncate(double x) {
    return (long)x;
}

/// One value per thread, tagged with its owner's number. Swift has no thread-local storage of its own;
/// pthread_getspecific is a call and a dozen instructions, a C thread-local two loads.
typedef struct {
    uint64_t owner;
    void *value;
} hot_path_thread_slot;

/// The calling thread's slot (defined in hot_path.c). No debug information: valgrind 3.19 cannot read
/// a thread-local's and gives up on the whole binary, and callgrind is how Benchmarks/ counts a query.
extern _Thread_local hot_path_thread_slot hot_path_slot __attribute__((nodebug));

/// The value the calling thread last stored for `owner`, or NULL when it stored none, or stored one for
/// another owner since. Owners are numbers never reused, so a value is never read for the wrong owner.
static inline void *hot_path_thread_value(uint64_t owner) {
    return hot_path_slot.owner == owner ? hot_path_slot.value : 0;
}

/// Stores `value` as the calling thread's value for `owner`, in place of whatever the slot held.
static inline void hot_path_set_thread_value(uint64_t owner, void *value) {
    hot_path_slot.owner = owner;
    hot_path_slot.value = value;
}

#endif
