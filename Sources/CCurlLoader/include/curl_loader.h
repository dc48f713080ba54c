// The HTTP reporter's wall to libcurl, which is loaded with dlopen on first use instead of linked.
//
// Why: linking libcurl (as Foundation's URLSession does) makes every start of the `geocode` binary pay
// the dynamic linker's work on libcurl and the ~30 libraries it needs (TLS, Kerberos, LDAP, ...):
// about 19 M instructions, a quarter of a one-point run, for a feature only `--report-to URL` uses.
// Our own code; only libcurl's stable C ABI (option numbers from curl.h, unchanged since 7.x) is used.
#ifndef GEOCODE_CURL_LOADER_H
#define GEOCODE_CURL_LOADER_H

#include <stddef.h>

/// Loads libcurl once. 0 when it is usable; else -1, with the reason in `error`.
int geocode_curl_load(char *error, size_t error_size);

/// POSTs `body` to `url` with the given header lines ("Name: value"), following redirects and keeping
/// the POST. Returns 0 when an HTTP response arrived (its status in `*status`); else libcurl's error
/// code (> 0) with its message in `error`, or -1 when libcurl cannot be loaded. `cancel` is read
/// during the transfer (``geocode_curl_cancel``): once set, the transfer is abandoned (code 42).
int geocode_curl_post(const char *url, const char *const *headers, size_t header_count,
                      const void *body, size_t body_size, long timeout_ms, const int *cancel,
                      long *status, char *error, size_t error_size);

/// Sets a cancel flag read by transfers on other threads.
void geocode_curl_cancel(int *cancel);

/// libcurl's codes the reporter words itself.
enum {
    GEOCODE_CURLE_COULDNT_RESOLVE_HOST = 6,
    GEOCODE_CURLE_COULDNT_CONNECT = 7,
    GEOCODE_CURLE_OPERATION_TIMEDOUT = 28,
    GEOCODE_CURLE_ABORTED_BY_CALLBACK = 42,
    GEOCODE_CURLE_GOT_NOTHING = 52,
    GEOCODE_CURLE_SEND_ERROR = 55,
    GEOCODE_CURLE_RECV_ERROR = 56,
};

#endif
