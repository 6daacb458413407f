#!/usr/bin/env python3
"""Helpers of bench/scheduling-throughput (Python 3 standard library only).

  throughput.py nodes KUBECONFIG FIRST LAST LABEL_KEY      create KWOK nodes bench-node-FIRST..LAST
  throughput.py pods KUBECONFIG NAMESPACE COUNT SCHEDULER  create pods tp-0..COUNT-1 at once; one JSON line
  throughput.py delete-pods KUBECONFIG NAMESPACE COUNT     delete them at once, grace period 0
  throughput.py bound AUDIT_LOG MARK NAMESPACE             pods of NAMESPACE bound since MARK (inode:offset)
  throughput.py audit AUDIT_LOG MARK NAMESPACE             pod creates and bindings since MARK; one JSON line
  throughput.py prom URL                                   GET a Prometheus text endpoint; JSON {series: value}
  throughput.py share SCHED_BEFORE SCHED_AFTER EXT_BEFORE EXT_AFTER
                                                           scheduler cycle time and the extender's share; JSON
  throughput.py placement NODES_TSV PODS_TXT               where the pods went; JSON
  throughput.py record NODES MODE EXTENDER LOAD NOTE AUDIT SHARE PLACEMENT CPU CREATOR
                                                           a run's JSON line from the JSON of the commands above
  throughput.py check JSON_LINE PODS                       what is wrong with a run, a line each (none: nothing)
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


def percentile(values, q):
    values = sorted(values)
    return round(1000 * values[min(len(values) - 1, int(q * len(values)))], 1) if values else None


def audit_since(path, mark):
    """The audit log's lines after mark ("inode:offset", taken with stat): the API server renames a full log (the
    inode stays) and starts a new one, so this reads the file of that inode from the offset, then, when it is no
    longer the current log, the current one from its start."""
    inode, offset = (int(x) for x in mark.split(":"))
    logs = os.path.dirname(path)
    first = next((os.path.join(logs, f) for f in os.listdir(logs)
                  if f.startswith("audit") and os.stat(os.path.join(logs, f)).st_ino == inode), path)
    for name, start in ((first, offset), (path, 0)) if first != path else ((path, offset),):
        with open(name, "rb") as f:
            f.seek(start)
            yield from f


def cmd_bound(path, mark, namespace):
    """How many pods of namespace were bound since mark (a quick count for polling)."""
    ns = f'"namespace":"{namespace}"'.encode()
    print(sum(1 for line in audit_since(path, mark)
              if b'"subresource":"binding"' in line and b'"code":201' in line and ns in line))


def cmd_audit(path, mark, namespace):
    """Per pod: created (requestReceivedTimestamp of its create) and bound (stageTimestamp of the pods/binding
    create that succeeded, i.e. when the API server had committed it), with the binder's user agent; and how long
    the API server itself took for each binding (requestReceived to ResponseComplete)."""
    created, created_done, bound, binders, failed, served = {}, {}, {}, Counter(), Counter(), []
    for line in audit_since(path, mark):
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
            served.append(ts(e["stageTimestamp"]) - ts(e["requestReceivedTimestamp"]))
            if code == 201:
                bound[ref["name"]] = ts(e["stageTimestamp"])
                binders[e.get("userAgent", "").split(" ")[0]] += 1
            else:
                failed[code] += 1
        elif sub == "" and code == 201:
            created[ref["name"]] = ts(e["requestReceivedTimestamp"])
            created_done[ref["name"]] = ts(e["stageTimestamp"])
    lat = [bound[p] - created[p] for p in bound if p in created]
    out = {"created": len(created), "bound": len(bound), "binding_failures": dict(failed), "binders": dict(binders),
           "apiserver_binding_p50_ms": percentile(served, 0.5), "apiserver_binding_p99_ms": percentile(served, 0.99)}
    if created and bound:
        first, last_create, last_bind = min(created.values()), max(created_done.values()), max(bound.values())
        out.update({"create_seconds": round(last_create - first, 3),
                    "creates_per_s": round(len(created) / max(last_create - first, 1e-3), 1),
                    "bind_seconds": round(last_bind - first, 3),
                    "pods_per_s": round(len(bound) / (last_bind - first), 1),
                    "p50_ms": percentile(lat, 0.5), "p99_ms": percentile(lat, 0.99), "max_ms": percentile(lat, 1)})
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


def cmd_record(nodes, mode, extender, load, note, audit, share, placement, cpu, creator, warmup="", warmup_jit=""):
    """One run's JSON line from the JSON of the other commands; warmup: the warm-up's pods, warmup_jit: the share of
    the extender's CPU its JIT compiler threads used in the last warm-up round (%)."""
    run = {"nodes": int(nodes), "mode": mode, "extender": extender, "loadavg": load}
    if note:
        run["note"] = note
    if warmup:
        run["warmup_pods"] = int(warmup)
    if warmup_jit:
        run["warmup_last_round_jit_pct"] = float(warmup_jit)
    run.update(json.loads(audit))
    run.update(json.loads(share))
    cpu_s = json.loads(cpu)
    # A part of the extender's own CPU, not a process of its own: kept apart so that no sum counts it twice.
    jit = cpu_s.pop("extender_jit", None)
    if jit is not None and cpu_s.get("extender"):
        run["extender_jit_cpu_s"] = jit
    run.update({"placement": json.loads(placement), "cpu_s": cpu_s, "creator": json.loads(creator)})
    print(json.dumps(run))


def cmd_check(line, pods):
    """What is wrong with a run, a line each: pods not bound, pods on unlabelled nodes when the extender filters,
    kube-scheduler binding in Bind mode, an extender never called."""
    r, pods = json.loads(line), int(pods)
    mode, p = r["mode"].split("@")[0], r["placement"]
    if r.get("bound") != pods or p["bound"] != pods:
        print(f"{r.get('bound')} bindings in the audit log and {p['bound']} pods with a node, of {pods}")
    if mode != "plugins-only" and p["on_unlabelled"]:
        print(f"{p['on_unlabelled']} pods on nodes without the label key")
    if mode == "bind" and any(b.startswith("kube-scheduler") for b in r.get("binders", {})):
        print(f"kube-scheduler bound pods itself in bind mode: {r['binders']}")
    if mode != "plugins-only" and not r.get("extender_calls"):
        print("the extender was never called")


def cmd_summary(line):
    r = json.loads(line)
    print(f"{r.get('pods_per_s')} pods/s, p50 {r.get('p50_ms')} ms, p99 {r.get('p99_ms')} ms, "
          f"cycle {r.get('cycle_ms_per_pod')} ms/pod, extender {r.get('extender_pct_of_cycle')}% of it; CPU s {r['cpu_s']}")


def median(values):
    values = sorted(values)
    n = len(values)
    return (values[n // 2] + values[(n - 1) // 2]) / 2 if values else None


def ours_cpu(r):
    """CPU seconds of this benchmark's processes in a run (everything but "outside")."""
    return sum(v for k, v in r["cpu_s"].items() if k != "outside")


def cmd_report(path, goal_nodes=None, goal=0.85):
    """Per node count: a summary (the median of each mode's runs, ratios to plugins-only's median) and every run;
    then the goal: names-only modes at goal_nodes (default: the largest count) at least `goal` x plugins-only."""
    runs = [json.loads(line) for line in open(path) if line.strip()]
    by_nodes = defaultdict(list)
    for r in runs:
        by_nodes[r["nodes"]].append(r)
    cols = ["apiserver", "etcd", "scheduler", "extender", "kwok", "other", "outside"]
    medians = {}
    for n, rs in by_nodes.items():
        modes = list(dict.fromkeys(r["mode"] for r in rs if not r["mode"].startswith("idle")))
        m = {}
        for mode in modes:
            mr = [r for r in rs if r["mode"] == mode and r.get("pods_per_s")]
            if mr:
                m[mode] = {"runs": len(mr), "all": [r["pods_per_s"] for r in mr],
                           "pods_per_s": median([r["pods_per_s"] for r in mr]),
                           "cpu_ms": median([1000 * ours_cpu(r) / r["bound"] for r in mr]),
                           "without_extender_cpu_ms": median(
                               [1000 * (ours_cpu(r) - r["cpu_s"].get("extender", 0)) / r["bound"] for r in mr]),
                           "extender_cpu_ms": median([1000 * r["cpu_s"].get("extender", 0) / r["bound"] for r in mr]),
                           "extender_jit_cpu_ms": median([1000 * r["extender_jit_cpu_s"] / r["bound"]
                                                          for r in mr if "extender_jit_cpu_s" in r]),
                           "cycle": median([r.get("cycle_ms_per_pod", 0) for r in mr]),
                           "share": median([r["extender_pct_of_cycle"] for r in mr if r.get("extender_calls")]),
                           "p50": median([r["p50_ms"] for r in mr]), "p99": median([r["p99_ms"] for r in mr])}
        medians[n] = m
        base = m.get("plugins-only")
        print(f"\n### {n} nodes\n")
        print("The median of each mode's runs; ratios against plugins-only's median.\n")
        print("| mode | runs | pods/s (each run) | × plugins-only | p50 / p99 ms | cycle ms/pod | extender % of cycle "
              "| CPU ms/pod | × plugins-only CPU |")
        print("|---|---:|---|---:|---|---:|---:|---:|---:|")
        for mode in modes:
            if mode not in m:
                note = next((r.get("note", "failed") for r in rs if r["mode"] == mode), "")
                print(f"| {mode} | 0 | {note} | | | | | | |")
                continue
            x = m[mode]
            ratio = f"{x['pods_per_s'] / base['pods_per_s']:.2f}" if base else "-"
            cpu_ratio = f"{x['cpu_ms'] / base['cpu_ms']:.2f}" if base else "-"
            share = "-" if x["share"] is None else f"{x['share']:.1f}%"
            each = ", ".join(f"{v:.0f}" for v in x["all"])
            print(f"| {mode} | {x['runs']} | **{x['pods_per_s']:.1f}** ({each}) | {ratio} | {x['p50']:.0f} / {x['p99']:.0f} "
                  f"| {x['cycle']:.2f} | {share} | {x['cpu_ms']:.1f} | {cpu_ratio} |")
        print("\nEvery run, in the order run:\n")
        print("| mode | pods/s | p50 ms | p99 ms | creates/s | API server binding p50 / p99 ms | cycle ms/pod "
              "| extender % of cycle | extender ms/call | " + " | ".join(f"CPU s {c}" for c in cols)
              + " | CPU ms/pod | run s | load avg |")
        print("|---|" + "---:|" * (11 + len(cols)))
        for r in rs:
            if r["mode"].startswith("idle"):
                continue
            if not r.get("pods_per_s"):
                print(f"| {r['mode']} | {r.get('note', 'failed')} |" + " |" * (11 + len(cols)))
                continue
            cpu = dict(r["cpu_s"])
            cpu["other"] = cpu.get("kcm", 0) + cpu.get("default_scheduler", 0) + cpu.get("creator", 0)
            share = f"{r['extender_pct_of_cycle']}%" if r.get("extender_calls") else "-"
            per_call = ", ".join(f"{k} {v}" for k, v in r.get("extender_ms_per_call", {}).items()) or "-"
            warm = (f" (warm-up {r['warmup_pods']} pods" + (f", last round's JIT {r['warmup_last_round_jit_pct']} %"
                                                              if "warmup_last_round_jit_pct" in r else "") + ")"
                    if "warmup_pods" in r else "")
            print(f"| {r['mode']}{warm} | {r['pods_per_s']} | {r['p50_ms']:.0f} | {r['p99_ms']:.0f} | {r['creates_per_s']} "
                  f"| {r.get('apiserver_binding_p50_ms', '-')} / {r.get('apiserver_binding_p99_ms', '-')} "
                  f"| {r.get('cycle_ms_per_pod', '-')} | {share} | {per_call} | "
                  + " | ".join(f"{cpu.get(c, 0):.1f}" + (f" ({r['extender_jit_cpu_s']:.1f} JIT)"
                                                           if c == "extender" and "extender_jit_cpu_s" in r else "")
                               for c in cols)
                  + f" | {1000 * ours_cpu(r) / r['bound']:.1f} | {r['bind_seconds']:.1f} | {r['loadavg']} |")
        for r in (r for r in rs if r["mode"].startswith("idle")):
            print("\nIdle, 30 s with no pods right after the nodes were Ready: CPU s "
                  + ", ".join(f"{k} {v}" for k, v in r["cpu_s"].items()
                              if k not in ("scheduler", "extender", "extender_jit", "creator"))
                  + f" (load average {r['loadavg']}).")
    n = int(goal_nodes) if goal_nodes else max(medians)
    m = medians.get(n, {})
    base = m.get("plugins-only")
    print(f"\n## Goal: names-only with the extender at least {goal}× plugins-only's pods/s at {n} nodes\n")
    for mode in ("filter", "filter-prioritize"):
        if base and mode in m:
            ratio = m[mode]["pods_per_s"] / base["pods_per_s"]
            verdict = "**met**" if ratio >= goal else "**not met**"
            print(f"- {mode}: {m[mode]['pods_per_s']:.1f} / {base['pods_per_s']:.1f} pods/s = {ratio:.2f}×: {verdict}")
        else:
            print(f"- {mode}: not measured")
    print_bound_goal(m, base, n)


def print_bound_goal(m, base, n, share=0.95):
    """Issue 47's goal: filter + prioritize at least `share` of the bound kube-scheduler's own CPU sets. With the cores
    saturated, pods/s follows this benchmark's CPU per pod; without the extender's own CPU a pod of the mode would cost
    (mode - extender) ms, so base / (mode - extender) x plugins-only's pods/s is what no extender could beat."""
    mode = "filter-prioritize"
    print(f"\n## Goal: {mode} at least {share} of the bound kube-scheduler's own CPU sets, {n} nodes\n")
    if not base or mode not in m:
        print(f"- {mode}: not measured")
        return
    x = m[mode]
    without = x["without_extender_cpu_ms"]  # the median of each run's own, not a difference of medians
    if without <= 0 or base["pods_per_s"] <= 0:
        print(f"- {mode}: no CPU or no pods/s recorded")
        return
    bound = base["cpu_ms"] / without
    ratio = x["pods_per_s"] / base["pods_per_s"]
    verdict = "**met**" if ratio >= share * bound else "**not met**"
    jit = x.get("extender_jit_cpu_ms")
    jit_note = "" if jit is None else f" ({jit:.2f} ms of it in its JIT compiler threads)"
    print(f"- CPU per pod (medians): plugins-only {base['cpu_ms']:.1f} ms; {mode} {x['cpu_ms']:.1f} ms, of which the "
          f"extender's {x['extender_cpu_ms']:.2f} ms{jit_note}; without it {without:.1f} ms (median of the runs)")
    print(f"- the bound: {base['cpu_ms']:.1f} / {without:.1f} = {bound:.3f}× plugins-only's pods/s; "
          f"{share} of it is {share * bound:.3f}×")
    print(f"- measured: {x['pods_per_s']:.1f} / {base['pods_per_s']:.1f} pods/s = {ratio:.3f}× plugins-only, "
          f"{ratio / bound:.2f} of the bound: {verdict}")


if __name__ == "__main__":
    cmds = {"bound": cmd_bound, "nodes": cmd_nodes, "pods": cmd_pods, "delete-pods": cmd_delete_pods, "audit": cmd_audit, "prom": cmd_prom, "share": cmd_share,
            "report": cmd_report, "placement": cmd_placement, "summary": cmd_summary,
            "record": cmd_record, "check": cmd_check}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    cmds[sys.argv[1]](*sys.argv[2:])
