#include "hot_path.h"

// Owner 0 is never given out (ContextRegistry numbers from 1), so a fresh thread's zeroed slot matches
// no owner.
_Thread_local hot_path_thread_slot hot_path_slot __attribute__((nodebug));
