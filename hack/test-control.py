#!/usr/bin/env python3
"""Fault control for the integration tests (started by `make test`).

Owns one real `kubectl proxy` that tests may kill and restart, and can
compact etcd, so the native and in-browser tests can cause the faults the
informer must survive. Listens on 127.0.0.1 only, and like the proxies it
answers only under a capability token (`/<token>/...`; anything else is a
404), with no CORS headers: no other page can read it or drive it. (The
in-browser tests reach it because their Chromium runs with web security
off, see crates/web/webdriver.json.) The proxy it owns runs under its own
token and the hardened reject-paths; it talks to etcd over client TLS.

  POST /<token>/proxy/stop     kill the proxy; returns once its port refuses connections
  POST /<token>/proxy/start    start it again; returns once it answers /version
  POST /<token>/etcd/compact   compact etcd at its current revision; returns {"revision": N}
  GET  /<token>/healthz        "ok"

Usage: test-control.py --port P --token T --proxy-port Q --proxy-token U
         --reject-paths R --kubectl K --kubeconfig C
         --etcd URL --etcd-ca F --etcd-cert F --etcd-key F
"""

import argparse
import base64
import http.server
import json
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request


def port_open(port):
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


class Proxy:
    def __init__(self, kubectl, kubeconfig, port, token, reject_paths, log):
        self.cmd = [kubectl, "--kubeconfig", kubeconfig, "proxy",
                    "--address", "127.0.0.1", "--port", str(port),
                    f"--api-prefix=/{token}/", f"--reject-paths={reject_paths}"]
        self.port = port
        self.token = token
        self.log = log
        self.proc = None

    def start(self):
        if self.proc and self.proc.poll() is None:
            return
        if port_open(self.port):
            raise RuntimeError(f"port {self.port} is already taken by another process")
        self.proc = subprocess.Popen(self.cmd, stdout=self.log, stderr=self.log)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"kubectl proxy exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/{self.token}/version", timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("kubectl proxy did not answer within 20 s")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        deadline = time.time() + 10
        while port_open(self.port) and time.time() < deadline:
            time.sleep(0.05)


def etcd_post(etcd, path, body):
    base, tls = etcd
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10, context=tls) as r:
        return json.load(r)


def compact(etcd):
    # Any range read reports the current revision in its header.
    key = base64.b64encode(b"/registry/kubeglass-none").decode()
    rev = int(etcd_post(etcd, "/v3/kv/range", {"key": key})["header"]["revision"])
    etcd_post(etcd, "/v3/kv/compaction", {"revision": str(rev), "physical": True})
    return rev


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--proxy-port", type=int, required=True)
    ap.add_argument("--proxy-token", required=True)
    ap.add_argument("--reject-paths", required=True)
    ap.add_argument("--kubectl", required=True)
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--etcd", required=True)
    ap.add_argument("--etcd-ca", required=True)
    ap.add_argument("--etcd-cert", required=True)
    ap.add_argument("--etcd-key", required=True)
    ap.add_argument("--log", default="/dev/null")
    args = ap.parse_args()
    log = open(args.log, "ab")
    tls = ssl.create_default_context(cafile=args.etcd_ca)
    tls.load_cert_chain(args.etcd_cert, args.etcd_key)
    etcd = (args.etcd, tls)
    prefix = f"/{args.token}"
    proxy = Proxy(args.kubectl, args.kubeconfig, args.proxy_port, args.proxy_token,
                  args.reject_paths, log)
    proxy.start()

    class Handler(http.server.BaseHTTPRequestHandler):
        def reply(self, code, body):
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def route(self):
            """The path after the token, or None (then a 404) without it."""
            if self.path.startswith(prefix + "/"):
                return self.path[len(prefix):]
            self.reply(404, {"error": "not found"})
            return None

        def do_GET(self):
            path = self.route()
            if path is None:
                return
            if path == "/healthz":
                self.reply(200, "ok")
            else:
                self.reply(404, {"error": "unknown path"})

        def do_POST(self):
            path = self.route()
            if path is None:
                return
            try:
                if path == "/proxy/stop":
                    proxy.stop()
                    self.reply(200, {"proxy": "stopped"})
                elif path == "/proxy/start":
                    proxy.start()
                    self.reply(200, {"proxy": "started"})
                elif path == "/etcd/compact":
                    self.reply(200, {"revision": compact(etcd)})
                else:
                    self.reply(404, {"error": "unknown path"})
            except Exception as e:  # report, keep serving
                self.reply(500, {"error": str(e)})

        def log_message(self, fmt, *a):
            # The request line holds the token: never in the log.
            line = (fmt % a).replace(args.token, "<token>")
            log.write(("control: " + line + "\n").encode())
            log.flush()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    # Stop the proxy too when stopped with SIGTERM (make test's cleanup).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    finally:
        proxy.stop()


if __name__ == "__main__":
    sys.exit(main())
