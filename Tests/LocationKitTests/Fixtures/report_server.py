#!/usr/bin/env python3
"""A loopback HTTP server for the PositionReporter tests: takes POSTed JSON arrays of reports and
logs what it saw, misbehaving on request as a real server or network would.

    python3 report_server.py --log LOG [--port P] [--fail-first N] [--drop-first N]
                             [--stall N:SECONDS]... [--hold N:FILE]...

- Listens on 127.0.0.1 only (port 0: any free port) and prints "PORT <n>" once it is listening.
- Request numbers count from 1 over the server's life. Requests 1..fail-first get HTTP 503; the next
  drop-first requests are read and then the connection is closed with no response at all; request N
  of a --stall N:S sleeps S seconds and then accepts (a slow server whose client may have given up:
  the client sees a failure, the server has the reports, so they arrive twice). --hold N:FILE holds
  request N until FILE exists (at most 120 s), then accepts it: the test decides when, so "killed
  while the server holds its request" does not depend on timing. Every other request is accepted
  with 200.
- LOG gets one JSON line per happening, fsynced before the response is sent, so a test that sees a
  200 finds it in the log: {"n":1,"event":"received"|"accepted"|"rejected"|"dropped"|"client-gone",
  "reports":[[seq,id],...]}.

Only the Python standard library; the tests start and kill it (SIGKILL for "the server went away").
"""
import argparse
import http.server
import json
import os
import sys
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("--log", required=True)
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--fail-first", type=int, default=0)
parser.add_argument("--drop-first", type=int, default=0)
parser.add_argument("--stall", action="append", default=[])
parser.add_argument("--hold", action="append", default=[])
args = parser.parse_args()

stalls = {}
for item in args.stall:
    number, seconds = item.split(":")
    stalls[int(number)] = float(seconds)
holds = {}
for item in args.hold:
    number, path = item.split(":", 1)
    holds[int(number)] = path

lock = threading.Lock()
counter = [0]
log_file = open(args.log, "a", encoding="utf-8")


def log(entry):
    with lock:
        line = json.dumps(entry)
        log_file.write(line + "\n")
        log_file.flush()
        os.fsync(log_file.fileno())
        # Also on stdout, after the log has it: the test wakes on this line instead of polling the log.
        print("LOG " + line, flush=True)


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *_):
        pass

    def respond(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        with lock:
            counter[0] += 1
            n = counter[0]
        try:
            reports = [[r["seq"], r["id"]] for r in json.loads(body)]
        except (ValueError, KeyError, TypeError) as error:
            log({"n": n, "event": "bad", "error": str(error)})
            self.respond(400, {"error": str(error)})
            return
        log({"n": n, "event": "received", "reports": reports})
        try:
            if n <= args.fail_first:
                log({"n": n, "event": "rejected", "reports": reports})
                self.respond(503, {"error": "try later"})
            elif n <= args.fail_first + args.drop_first:
                log({"n": n, "event": "dropped", "reports": reports})
                self.close_connection = True  # no response: the client sees the connection close
            else:
                if n in stalls:
                    time.sleep(stalls[n])
                if n in holds:
                    deadline = time.monotonic() + 120
                    while not os.path.exists(holds[n]) and time.monotonic() < deadline:
                        time.sleep(0.01)
                log({"n": n, "event": "accepted", "reports": reports})
                self.respond(200, {"accepted": len(reports)})
        except (BrokenPipeError, ConnectionResetError):
            log({"n": n, "event": "client-gone", "reports": reports})


server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
print("PORT %d" % server.server_address[1], flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    sys.exit(0)
