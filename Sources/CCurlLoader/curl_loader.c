// See include/curl_loader.h for why libcurl is loaded, not linked.
#include "curl_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void CURL;
struct curl_slist;
typedef int CURLcode;
typedef int64_t curl_off_t;

// Option and info numbers, as curl.h defines them (type base + number; part of libcurl's ABI).
enum {
    OPT_URL = 10002, OPT_ERRORBUFFER = 10010, OPT_POSTFIELDS = 10015, OPT_HTTPHEADER = 10023,
    OPT_XFERINFODATA = 10057, OPT_WRITEFUNCTION = 20011, OPT_XFERINFOFUNCTION = 20219,
    OPT_NOPROGRESS = 43, OPT_POST = 47, OPT_FOLLOWLOCATION = 52, OPT_MAXREDIRS = 68, OPT_NOSIGNAL = 99,
    OPT_TIMEOUT_MS = 155, OPT_CONNECTTIMEOUT_MS = 156, OPT_POSTREDIR = 161, OPT_POSTFIELDSIZE_LARGE = 30120,
    INFO_RESPONSE_CODE = 0x200000 + 2,
    GLOBAL_ALL = 3, REDIR_POST_ALL = 7, ERROR_SIZE = 256,
};

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, int, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, int, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int usable;
static char load_error[512];

static void load(void) {
    // The runtime name first (Debian's libcurl4 / libcurl3-gnutls), the development link last.
    const char *names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_error, sizeof load_error,
                 "HTTP reporting needs libcurl, which cannot be loaded (%s); install it (Debian: apt install libcurl4)",
                 dlerror());
        return;
    }
    struct { void **slot; const char *name; } symbols[] = {
        {(void **)&curl.global_init, "curl_global_init"}, {(void **)&curl.easy_init, "curl_easy_init"},
        {(void **)&curl.easy_setopt, "curl_easy_setopt"}, {(void **)&curl.easy_perform, "curl_easy_perform"},
        {(void **)&curl.easy_getinfo, "curl_easy_getinfo"}, {(void **)&curl.easy_cleanup, "curl_easy_cleanup"},
        {(void **)&curl.easy_strerror, "curl_easy_strerror"}, {(void **)&curl.slist_append, "curl_slist_append"},
        {(void **)&curl.slist_free_all, "curl_slist_free_all"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].slot = dlsym(lib, symbols[i].name);
        if (!*symbols[i].slot) {
            snprintf(load_error, sizeof load_error, "the loaded libcurl has no %s", symbols[i].name);
            return;
        }
    }
    // Once, before any thread makes a handle (curl_global_init is not thread-safe in older libcurls).
    if (curl.global_init(GLOBAL_ALL) != 0) {
        snprintf(load_error, sizeof load_error, "libcurl failed to initialise (curl_global_init)");
        return;
    }
    usable = 1;
}

int geocode_curl_load(char *error, size_t error_size) {
    pthread_once(&once, load);
    if (usable) return 0;
    if (error && error_size) snprintf(error, error_size, "%s", load_error);
    return -1;
}

void geocode_curl_cancel(int *cancel) { __atomic_store_n(cancel, 1, __ATOMIC_RELEASE); }

// The response body is not needed: only the status says whether the batch got there.
static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}

static int progress(void *cancel, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)dlnow; (void)ultotal; (void)ulnow;
    return __atomic_load_n((const int *)cancel, __ATOMIC_ACQUIRE) != 0;
}

int geocode_curl_post(const char *url, const char *const *headers, size_t header_count,
                      const void *body, size_t body_size, long timeout_ms, const int *cancel,
                      long *status, char *error, size_t error_size) {
    if (geocode_curl_load(error, error_size) != 0) return -1;
    CURL *handle = curl.easy_init();
    if (!handle) {
        snprintf(error, error_size, "libcurl could not make a handle (out of memory?)");
        return 27;  // CURLE_OUT_OF_MEMORY
    }
    char buffer[ERROR_SIZE] = {0};
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < header_count; i++) list = curl.slist_append(list, headers[i]);
    // No "Expect: 100-continue" for large bodies: a collector that does not answer it would cost a
    // second's wait per batch.
    list = curl.slist_append(list, "Expect:");
    curl.easy_setopt(handle, OPT_URL, url);
    curl.easy_setopt(handle, OPT_ERRORBUFFER, buffer);
    curl.easy_setopt(handle, OPT_POST, 1L);
    curl.easy_setopt(handle, OPT_POSTFIELDS, body);
    curl.easy_setopt(handle, OPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_size);
    curl.easy_setopt(handle, OPT_HTTPHEADER, list);
    curl.easy_setopt(handle, OPT_WRITEFUNCTION, discard);
    curl.easy_setopt(handle, OPT_NOPROGRESS, 0L);
    curl.easy_setopt(handle, OPT_XFERINFOFUNCTION, progress);
    curl.easy_setopt(handle, OPT_XFERINFODATA, (void *)cancel);
    curl.easy_setopt(handle, OPT_FOLLOWLOCATION, 1L);
    curl.easy_setopt(handle, OPT_MAXREDIRS, 10L);
    curl.easy_setopt(handle, OPT_POSTREDIR, (long)REDIR_POST_ALL);
    // Threads, not signals, for timeouts: this runs on a worker thread of a multithreaded process.
    curl.easy_setopt(handle, OPT_NOSIGNAL, 1L);
    curl.easy_setopt(handle, OPT_TIMEOUT_MS, timeout_ms);
    curl.easy_setopt(handle, OPT_CONNECTTIMEOUT_MS, timeout_ms);
    CURLcode code = curl.easy_perform(handle);
    if (code == 0) {
        long response = 0;
        curl.easy_getinfo(handle, INFO_RESPONSE_CODE, &response);
        *status = response;
    } else {
        snprintf(error, error_size, "%s", buffer[0] ? buffer : curl.easy_strerror(code));
    }
    curl.easy_cleanup(handle);
    curl.slist_free_all(list);
    return code;
}
