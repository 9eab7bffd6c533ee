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

No token is on a command line, its own or the proxy's (every local user can
read those in `ps`): both come in the environment, KUBEGLASS_CONTROL_TOKEN
(the control's) and KUBEGLASS_FAULT_PROXY_TOKEN (the proxy's), and leave it
at once; the proxy gets its prefix from a kuberc file (mode 0600, in a
folder of its own that only we can enter, removed on exit), as hack/lib.sh's
proxy_args does.

  POST /<token>/proxy/stop     kill the proxy; returns once its port refuses connections
  POST /<token>/proxy/start    start it again; returns once it answers /version
  POST /<token>/etcd/compact   compact etcd at its current revision; returns {"revision": N}
  GET  /<token>/healthz        "ok"

Usage: KUBEGLASS_CONTROL_TOKEN=T KUBEGLASS_FAULT_PROXY_TOKEN=U \
       test-control.py --port P --proxy-port Q --reject-paths R --kubectl K --kubeconfig C
         --etcd URL --etcd-ca F --etcd-cert F --etcd-key F
"""

import argparse
import base64
import http.server
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request


def port_open(port):
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def write_kuberc(path, token):
    """A kuberc that gives `kubectl proxy` the API prefix /<token>/, mode 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\ndefaults:\n"
                "- command: proxy\n  options:\n  - name: api-prefix\n"
                f'    default: "/{token}/"\n')


class Proxy:
    def __init__(self, kubectl, kubeconfig, port, token, reject_paths, log, kuberc):
        # --kuberc fails closed: with kuberc turned off kubectl exits rather
        # than serve without the prefix.
        self.cmd = [kubectl, "--kubeconfig", kubeconfig, f"--kuberc={kuberc}", "proxy",
                    "--address", "127.0.0.1", "--port", str(port),
                    f"--reject-paths={reject_paths}"]
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


def take_env(name):
    """The value of `name`, removed from the environment (kubectl need not see it)."""
    value = os.environ.pop(name, "")
    if not value:
        sys.exit(f"test-control.py: {name} is not set (the tokens come in the environment, never as arguments)")
    return value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--proxy-port", type=int, required=True)
    ap.add_argument("--reject-paths", required=True)
    ap.add_argument("--kubectl", required=True)
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--etcd", required=True)
    ap.add_argument("--etcd-ca", required=True)
    ap.add_argument("--etcd-cert", required=True)
    ap.add_argument("--etcd-key", required=True)
    ap.add_argument("--log", default="/dev/null")
    args = ap.parse_args()
    token = take_env("KUBEGLASS_CONTROL_TOKEN")
    proxy_token = take_env("KUBEGLASS_FAULT_PROXY_TOKEN")
    log = open(args.log, "ab")
    tls = ssl.create_default_context(cafile=args.etcd_ca)
    tls.load_cert_chain(args.etcd_cert, args.etcd_key)
    etcd = (args.etcd, tls)
    prefix = f"/{token}"
    private = tempfile.mkdtemp(prefix="kubeglass-control.")  # mode 0700
    # Stop the proxy and remove the folder when stopped with SIGTERM (make
    # test's cleanup) too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        kuberc = os.path.join(private, "fault-proxy.kuberc")
        write_kuberc(kuberc, proxy_token)
        proxy = Proxy(args.kubectl, args.kubeconfig, args.proxy_port, proxy_token,
                      args.reject_paths, log, kuberc)
        try:
            serve(args.port, token, prefix, proxy, etcd, log)
        finally:
            proxy.stop()
    finally:
        shutil.rmtree(private, ignore_errors=True)


def serve(port, token, prefix, proxy, etcd, log):
    """Starts the proxy and answers the tests until stopped."""
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
            line = (fmt % a).replace(token, "<token>")
            log.write(("control: " + line + "\n").encode())
            log.flush()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
