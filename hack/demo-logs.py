#!/usr/bin/env python3
"""The demo's container logs: real files that kwok's kubelet API serves.

kwok simulates containers, so nothing writes their output. This daemon plays
the containers' part for pods labelled kubeglass.dev/logs=<profile>: it
watches those pods, writes each container's log in the CRI format a real
runtime writes (`<RFC 3339 nanos> stdout F <line>`), and creates a kwok
`Logs` object (owned by the pod, so the garbage collector removes it) that
tells kwok's kubelet API which file belongs to which container. The
apiserver then reaches kwok as it reaches any kubelet, so `kubectl logs`,
`kubectl logs -f`, `--previous`, `--tail` and `--since` all work over the
real path.

Profiles (the label's value):
  steady   an access log, one line per second per container
  ansi     levels in ANSI colour, and lines that look like HTML
  burst    100,000 numbered lines at start, then one line per second
  failing  a crash in the previous container's log, a short current one
  quiet    only the first line (benchmarks write the rest themselves)

Runs until killed; started by hack/demo-workload.sh, stopped by
hack/cluster.sh down.
"""

import argparse
import datetime
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time

LABEL = "kubeglass.dev/logs"
BURST = 100_000


def stamp():
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond:06d}000Z"


def cri(line, stream="stdout"):
    return f"{stamp()} {stream} F {line}\n"


class Pods:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.live = {}  # (ns, name) -> dict(uid, profile, files)

    def kubectl(self, *argv, data=None):
        return subprocess.run(
            [self.args.kubectl, "--kubeconfig", self.args.kubeconfig, *argv],
            input=data, capture_output=True, text=True, check=False)

    def added(self, pod):
        meta, spec = pod["metadata"], pod.get("spec", {})
        key = (meta["namespace"], meta["name"])
        with self.lock:
            if key in self.live and self.live[key]["uid"] == meta["uid"]:
                return
        profile = meta.get("labels", {}).get(LABEL, "steady")
        containers = [c["name"] for kind in ("initContainers", "containers", "ephemeralContainers")
                      for c in spec.get(kind, []) or []]
        folder = os.path.join(self.args.dir, meta["namespace"], meta["name"])
        os.makedirs(folder, exist_ok=True)
        files, logs = {}, []
        for c in containers:
            current = os.path.join(folder, f"{c}.log")
            previous = os.path.join(folder, f"{c}.previous.log")
            with open(current, "a", encoding="utf-8") as f:
                f.write(cri(f"starting {c} ({profile} demo log)"))
            with open(previous, "a", encoding="utf-8") as f:
                if profile == "failing":
                    f.write(cri(f"{c}: loading model /models/latest.bin"))
                    f.write(cri("Traceback (most recent call last):", "stderr"))
                    f.write(cri('  File "/app/worker.py", line 42, in load', "stderr"))
                    f.write(cri("FileNotFoundError: /models/latest.bin", "stderr"))
            files[c] = current
            logs.append({"containers": [c], "logsFile": current, "previousLogsFile": previous, "follow": True})
        obj = {
            "apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "Logs",
            "metadata": {"name": meta["name"], "namespace": meta["namespace"],
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": meta["name"],
                                              "uid": meta["uid"]}]},
            "spec": {"logs": logs},
        }
        r = self.kubectl("apply", "-f", "-", data=json.dumps(obj))
        if r.returncode != 0:
            print(f"demo-logs: Logs for {key[0]}/{key[1]}: {r.stderr.strip()}", file=sys.stderr)
        with self.lock:
            self.live[key] = {"uid": meta["uid"], "profile": profile, "files": files, "n": 0}
        if profile == "burst":
            for c, path in files.items():
                with open(path, "a", encoding="utf-8") as f:
                    f.writelines(cri(f"burst line {i:06d} of {BURST} from {c}") for i in range(1, BURST + 1))

    def deleted(self, pod):
        meta = pod["metadata"]
        key = (meta["namespace"], meta["name"])
        with self.lock:
            gone = self.live.pop(key, None)
        if gone is not None and gone["uid"] == meta["uid"]:
            shutil.rmtree(os.path.join(self.args.dir, *key), ignore_errors=True)

    def tick(self):
        paths = ["/", "/cart", "/checkout", "/api/items?page=2", "/healthz"]
        with self.lock:
            pods = list(self.live.items())
        for (_ns, name), p in pods:
            if p["profile"] == "quiet":
                continue
            p["n"] += 1
            for c, path in p["files"].items():
                if p["profile"] == "ansi":
                    level = random.choice(["\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[1;31mERROR\x1b[0m"])
                    line = f"{level} \x1b[36m{c}\x1b[0m request {p['n']} <b>bold?</b> <img src=x onerror=alert(1)>"
                elif p["profile"] == "failing":
                    line = f"{c}: retrying model load (attempt {p['n']})"
                else:
                    line = (f'10.0.0.{p["n"] % 250 + 2} - - "GET {random.choice(paths)} HTTP/1.1" '
                            f'{random.choice([200, 200, 200, 304, 404, 500])} {random.randint(1, 90)}ms '
                            f'pod={name} n={p["n"]}')
                try:
                    with open(path, "a", encoding="utf-8") as f:
                        f.write(cri(line, "stderr" if "ERROR" in line else "stdout"))
                except FileNotFoundError:
                    pass


def watch(pods):
    """Follows `kubectl get pods -w` (JSON watch events) and hands each event on."""
    while True:
        proc = subprocess.Popen(
            [pods.args.kubectl, "--kubeconfig", pods.args.kubeconfig, "get", "pods", "-A", "-l", LABEL,
             "--watch", "--output-watch-events", "-o", "json"],
            stdout=subprocess.PIPE, text=True)
        decoder, buf = json.JSONDecoder(), ""
        for chunk in iter(lambda: proc.stdout.readline(), ""):
            buf += chunk
            while True:
                stripped = buf.lstrip()
                if not stripped:
                    buf = ""
                    break
                try:
                    event, end = decoder.raw_decode(stripped)
                except json.JSONDecodeError:
                    break
                buf = stripped[end:]
                kind, obj = event.get("type"), event.get("object", {})
                if kind in ("ADDED", "MODIFIED"):
                    pods.added(obj)
                elif kind == "DELETED":
                    pods.deleted(obj)
        proc.wait()
        time.sleep(1)  # kubectl's watch ended (apiserver restart): start it again


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kubectl", required=True)
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--dir", required=True, help="where the log files live")
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between steady lines")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    pods = Pods(args)
    threading.Thread(target=watch, args=(pods,), daemon=True).start()
    while True:
        time.sleep(args.interval)
        pods.tick()


if __name__ == "__main__":
    main()
