#!/usr/bin/env python3
"""Helpers of bench/scheduling-throughput (Python 3 standard library only).

  throughput.py nodes KUBECONFIG FIRST LAST LABEL_KEY      create KWOK nodes bench-node-FIRST..LAST
  throughput.py pods KUBECONFIG NAMESPACE COUNT SCHEDULER  create pods tp-0..COUNT-1 at once; one JSON line
  throughput.py delete-pods KUBECONFIG NAMESPACE COUNT     delete them at once, grace period 0
  throughput.py audit AUDIT_LOG OFFSET NAMESPACE           pod creates and bindings after byte OFFSET; one JSON line
  throughput.py prom URL                                   GET a Prometheus text endpoint; JSON {series: value}
  throughput.py share SCHED_BEFORE SCHED_AFTER EXT_BEFORE EXT_AFTER
                                                           scheduler cycle time and the extender's share; JSON
  throughput.py placement NODES_TSV PODS_TXT               where the pods went; JSON
  throughput.py summary JSON_LINE                          one line about a run
  throughput.py report RUNS.jsonl                          markdown tables of the runs, one per node count

Objects are created over keep-alive HTTPS connections (CONCURRENCY, default 32), with the kubeconfig's client
certificate, so the creator is not what limits a run (its own rate is in the output: creates/s).
"""

import http.client
import json
import os
import queue
import random
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter, defaultdict
from datetime import datetime

CONCURRENCY = int(os.environ.get("CONCURRENCY", "32"))


def kube_client(kubeconfig):
    """(host, port, ssl context) of the kubeconfig's current context, through kubectl (it resolves the files)."""
    raw = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "config", "view", "--raw", "--minify", "-o", "json"],
                         check=True, capture_output=True, text=True).stdout
    conf = json.loads(raw)
    cluster, user = conf["clusters"][0]["cluster"], conf["users"][0]["user"]
    ctx = ssl.create_default_context(cafile=cluster["certificate-authority"])
    ctx.load_cert_chain(user["client-certificate"], user["client-key"])
    host, port = cluster["server"].removeprefix("https://").rsplit(":", 1)
    return host, int(port), ctx


def send_all(kubeconfig, requests):
    """Sends every (method, path, body) over CONCURRENCY keep-alive connections; returns (seconds, {status: count})."""
    host, port, ctx = kube_client(kubeconfig)
    work = queue.Queue()
    for r in requests:
        work.put(r)
    codes, lock = Counter(), threading.Lock()

    def worker():
        conn = http.client.HTTPSConnection(host, port, context=ctx)
        while True:
            try:
                method, path, body = work.get_nowait()
            except queue.Empty:
                break
            conn.request(method, path, body, {"Content-Type": "application/json"})
            resp = conn.getresponse()
            text = resp.read()
            with lock:
                codes[resp.status] += 1
                if resp.status >= 300 and not (method == "DELETE" and resp.status == 404) and codes[resp.status] <= 3:
                    print(f"{method} {path}: {resp.status} {text[:300]!r}", file=sys.stderr)
        conn.close()

    start = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(CONCURRENCY)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - start, dict(codes)


ZONES = {"us-east-1": ["us-east-1a", "us-east-1b", "us-east-1c"]}
TYPES = [("m5.xlarge", "4", "16Gi")]


def node(i, label_key, rnd):
    """A KWOK node labelled as a cloud node is: hostname, region/zone, instance type, os/arch; 90% carry label_key
    with a value 0..100. Allocatable as e2e/cluster sets it (4 CPU, 16Gi, 110 pods)."""
    name = f"bench-node-{i}"
    region = "us-east-1"
    zone = ZONES[region][i % 3]
    itype, cpu, mem = TYPES[0]
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64", "type": "kwok",
              "topology.kubernetes.io/region": region, "topology.kubernetes.io/zone": zone,
              "node.kubernetes.io/instance-type": itype, "beta.kubernetes.io/instance-type": itype}
    if rnd.random() < 0.9:
        labels[label_key] = str(rnd.randint(0, 100))
    res = {"cpu": cpu, "memory": mem, "pods": "110", "ephemeral-storage": "100Gi"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels,
                         "annotations": {"node.alpha.kubernetes.io/ttl": "0", "kwok.x-k8s.io/node": "fake"}},
            "status": {"allocatable": res, "capacity": res}}


def pod(namespace, i, scheduler):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"tp-{i}", "namespace": namespace, "labels": {"app": "throughput"}},
            "spec": {"schedulerName": scheduler, "terminationGracePeriodSeconds": 0,
                     "containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}}


def posts(path, objects):
    return [("POST", path, json.dumps(o).encode()) for o in objects]


def cmd_nodes(kubeconfig, first, last, label_key):
    """Nodes bench-node-FIRST..LAST; node i is the same in every run (its labels come from a generator seeded by i)."""
    objects = [node(i, label_key, random.Random(i)) for i in range(int(first), int(last) + 1)]
    secs, codes = send_all(kubeconfig, posts("/api/v1/nodes", objects))
    print(json.dumps({"nodes": len(objects), "seconds": round(secs, 2), "codes": codes}))


def cmd_pods(kubeconfig, namespace, count, scheduler):
    n = int(count)
    path = f"/api/v1/namespaces/{namespace}/pods"
    secs, codes = send_all(kubeconfig, posts(path, [pod(namespace, i, scheduler) for i in range(n)]))
    t = os.times()
    print(json.dumps({"pods": n, "seconds": round(secs, 3), "creates_per_s": round(n / secs, 1), "codes": codes,
                      "creator_cpu_s": round(t.user + t.system, 2)}))


def cmd_delete_pods(kubeconfig, namespace, count):
    """Deletes tp-0..count-1 at once with grace period 0 (a deletecollection deletes one pod at a time)."""
    body = json.dumps({"gracePeriodSeconds": 0}).encode()
    reqs = [("DELETE", f"/api/v1/namespaces/{namespace}/pods/tp-{i}", body) for i in range(int(count))]
    secs, codes = send_all(kubeconfig, reqs)
    print(json.dumps({"deleted": codes.get(200, 0), "seconds": round(secs, 2), "codes": codes}))


def ts(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def cmd_audit(path, offset, namespace):
    """Per pod: created (requestReceivedTimestamp of its create) and bound (stageTimestamp of the pods/binding
    create that succeeded, i.e. when the API server had committed it), with the binder's user agent."""
    created, created_done, bound, binders, failed = {}, {}, {}, Counter(), Counter()
    with open(path, "rb") as f:
        f.seek(int(offset))
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            ref = e.get("objectRef", {})
            if e.get("stage") != "ResponseComplete" or ref.get("namespace") != namespace or e.get("verb") != "create":
                continue
            code = e.get("responseStatus", {}).get("code", 0)
            sub = ref.get("subresource", "")
            if sub == "binding":
                if code == 201:
                    bound[ref["name"]] = ts(e["stageTimestamp"])
                    binders[e.get("userAgent", "").split(" ")[0]] += 1
                else:
                    failed[code] += 1
            elif sub == "" and code == 201:
                created[ref["name"]] = ts(e["requestReceivedTimestamp"])
                created_done[ref["name"]] = ts(e["stageTimestamp"])
    lat = sorted(bound[p] - created[p] for p in bound if p in created)

    def pct(q):
        return round(1000 * lat[min(len(lat) - 1, int(q * len(lat)))], 1) if lat else None

    out = {"created": len(created), "bound": len(bound), "binding_failures": dict(failed), "binders": dict(binders)}
    if created and bound:
        first, last_create, last_bind = min(created.values()), max(created_done.values()), max(bound.values())
        out.update({"create_seconds": round(last_create - first, 3),
                    "creates_per_s": round(len(created) / max(last_create - first, 1e-3), 1),
                    "bind_seconds": round(last_bind - first, 3),
                    "pods_per_s": round(len(bound) / (last_bind - first), 1),
                    "p50_ms": pct(0.50), "p99_ms": pct(0.99), "max_ms": round(1000 * lat[-1], 1)})
    print(json.dumps(out))


def cmd_prom(url):
    """Prometheus text format to {"name{labels}": value}; plain HTTP or HTTPS without verification (loopback)."""
    ctx = ssl._create_unverified_context()
    with urllib.request.urlopen(url, context=ctx, timeout=10) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            try:
                out[key] = float(value)
            except ValueError:
                pass
    print(json.dumps(out))


def delta(before, after, prefix):
    """{series: after - before} for the series whose name starts with prefix."""
    return {k: v - before.get(k, 0.0) for k, v in after.items() if k.startswith(prefix)}


def cmd_share(sched_before, sched_after, ext_before, ext_after):
    """From /metrics scraped before and after a run: kube-scheduler's attempts, attempt and algorithm seconds and
    its time per extension point; the extender's server seconds and calls per verb (ours:
    schedulerops_extender_request_seconds_{sum,count}{verb}; the Go baseline: go_extender_request_seconds_sum{path}
    and go_extender_requests_total{path}); the extender's filter/prioritize time as a share of the scheduling cycle
    (algorithm time, where kube-scheduler waits for those calls) and of the attempt time."""
    sb, sa, eb, ea = (json.load(open(p)) for p in (sched_before, sched_after, ext_before, ext_after))
    d = delta(sb, sa, "scheduler_")
    total = lambda name: sum(v for k, v in d.items() if k.startswith(name + "{") or k == name)
    out = {"attempts": int(total("scheduler_scheduling_attempt_duration_seconds_count")),
           "attempt_s": total("scheduler_scheduling_attempt_duration_seconds_sum"),
           "algorithm_s": total("scheduler_scheduling_algorithm_duration_seconds_sum"), "points_s": {}}
    for k, v in d.items():
        if k.startswith("scheduler_framework_extension_point_duration_seconds_sum"):
            point = k.split('extension_point="')[1].split('"')[0]
            out["points_s"][point] = round(out["points_s"].get(point, 0.0) + v, 3)
    verbs = defaultdict(lambda: [0.0, 0])
    for k, v in delta(eb, ea, "").items():
        for name, idx in (("schedulerops_extender_request_seconds_sum", 0),
                          ("schedulerops_extender_request_seconds_count", 1),
                          ("go_extender_request_seconds_sum", 0), ("go_extender_requests_total", 1)):
            if k.startswith(name + "{"):
                label = k.split('verb="')[1] if 'verb="' in k else k.split('path="')[1]
                verbs[label.split('"')[0].strip("/")][idx] += v
    verbs = {k: v for k, v in verbs.items() if k in ("filter", "filter_onlyone", "prioritize", "bind") and v[1] > 0}
    in_cycle = sum(v[0] for k, v in verbs.items() if k != "bind")
    out["extender_calls"] = {k: int(v[1]) for k, v in verbs.items()}
    out["extender_ms_per_call"] = {k: round(1000 * v[0] / v[1], 3) for k, v in verbs.items()}
    out["extender_s"] = round(sum(v[0] for v in verbs.values()), 3)
    if out["attempts"]:
        out["cycle_ms_per_pod"] = round(1000 * out["algorithm_s"] / out["attempts"], 2)
    if out["algorithm_s"]:
        out["extender_pct_of_cycle"] = round(100 * in_cycle / out["algorithm_s"], 1)
    if out["attempt_s"]:
        out["extender_pct_of_attempt"] = round(100 * out["extender_s"] / out["attempt_s"], 2)
    for k in ("attempt_s", "algorithm_s"):
        out[k] = round(out[k], 3)
    print(json.dumps(out))


def cmd_placement(nodes_tsv, pods_txt):
    """Where the pods went: nodes_tsv has "name<TAB>label value" per node (empty: unlabelled), pods_txt one
    nodeName per pod line (empty: not bound)."""
    value = dict((line.rstrip("\n").split("\t") + [""])[:2] for line in open(nodes_tsv) if line.strip())
    placed = [line.strip() for line in open(pods_txt)]
    bound = [n for n in placed if n]
    values = [int(value[n]) for n in bound if value.get(n, "").isdigit()]
    print(json.dumps({"pods": len(placed), "bound": len(bound), "on_unlabelled": sum(1 for n in bound if not value.get(n)),
                      "nodes_used": len(set(bound)), "min_value": min(values) if values else None,
                      "mean_value": round(sum(values) / len(values), 1) if values else None}))


def cmd_summary(line):
    r = json.loads(line)
    print(f"{r.get('pods_per_s')} pods/s, p50 {r.get('p50_ms')} ms, p99 {r.get('p99_ms')} ms, "
          f"cycle {r.get('cycle_ms_per_pod')} ms/pod, extender {r.get('extender_pct_of_cycle')}% of it; CPU s {r['cpu_s']}")


def cmd_report(path):
    runs = [json.loads(line) for line in open(path) if line.strip()]
    by_nodes = defaultdict(list)
    for r in runs:
        by_nodes[r["nodes"]].append(r)
    cols = ["apiserver", "etcd", "scheduler", "extender", "kwok", "other", "outside"]
    for n, rs in by_nodes.items():
        base = [r["pods_per_s"] for r in rs if r["mode"] == "plugins-only" and r.get("pods_per_s")]
        base = sum(base) / len(base) if base else None
        print(f"\n### {n} nodes\n")
        if base:
            print(f"Ratios are against the mean of the plugins-only runs ({base:.1f} pods/s).\n")
        print("| mode | pods/s | × plugins-only | p50 ms | p99 ms | creates/s | cycle ms/pod | extender % of cycle "
              "| extender ms/call | " + " | ".join(f"CPU s {c}" for c in cols) + " | CPU ms/pod | run s | load avg |")
        print("|---|" + "---:|" * (11 + len(cols)))
        for r in rs:
            if r["mode"].startswith("idle"):
                continue
            if not r.get("pods_per_s"):
                print(f"| {r['mode']} | {r.get('note', 'failed')} |" + " |" * (11 + len(cols)))
                continue
            cpu = dict(r["cpu_s"])
            cpu["other"] = cpu.get("kcm", 0) + cpu.get("default_scheduler", 0) + cpu.get("creator", 0)
            ours = sum(cpu[c] for c in cols if c != "outside")
            ratio = f"{r['pods_per_s'] / base:.2f}" if base else "-"
            share = r.get("extender_pct_of_cycle") if r.get("extender_calls") else None
            per_call = ", ".join(f"{k} {v}" for k, v in r.get("extender_ms_per_call", {}).items()) or "-"
            print(f"| {r['mode']} | {r['pods_per_s']} | {ratio} | {r['p50_ms']:.0f} | {r['p99_ms']:.0f} "
                  f"| {r['creates_per_s']} | {r.get('cycle_ms_per_pod', '-')} | {'-' if share is None else f'{share}%'} "
                  f"| {per_call} | " + " | ".join(f"{cpu.get(c, 0):.1f}" for c in cols)
                  + f" | {1000 * ours / r['bound']:.1f} | {r['bind_seconds']:.1f} | {r['loadavg']} |")
        idle = [r for r in rs if r["mode"].startswith("idle")]
        for r in idle:
            c = r["cpu_s"]
            print(f"\nIdle, 30 s with no pods (KWOK's node leases and heartbeats): CPU s "
                  + ", ".join(f"{k} {v}" for k, v in c.items() if k not in ("scheduler", "extender", "creator"))
                  + f" (load average {r['loadavg']}).")


if __name__ == "__main__":
    cmds = {"nodes": cmd_nodes, "pods": cmd_pods, "delete-pods": cmd_delete_pods, "audit": cmd_audit, "prom": cmd_prom, "share": cmd_share,
            "report": cmd_report, "placement": cmd_placement, "summary": cmd_summary}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    cmds[sys.argv[1]](*sys.argv[2:])
