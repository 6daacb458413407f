// Command fixturegen writes the extender protocol fixtures under extender/src/test/resources/fixtures.
//
// Requests are marshalled exactly as kube-scheduler 1.33's HTTPExtender.send does (json.Marshal of the
// k8s.io/kube-scheduler/extender/v1 types, which carry no JSON tags). Expected responses are the extender's
// intended answers, marshalled from the same Go types, so they are by construction what kube-scheduler reads.
//
// Run from this directory: go run . ../../resources/fixtures
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

const labelKey = "priority.lixueduan.com"

const lacks = `node(s) lack the label "priority.lixueduan.com" required by the SchedulerProfile extender`
const notChosen = `node(s) not chosen: the SchedulerProfile extender keeps only the node with the highest "priority.lixueduan.com" value`
const unknown = `node(s) not yet known to the SchedulerProfile extender's node cache`

func pod(name string) *v1.Pod {
	return &v1.Pod{
		TypeMeta:   metav1.TypeMeta{},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "demo", UID: types.UID("uid-" + name), Labels: map[string]string{"app": "demo"}},
		Spec: v1.PodSpec{
			SchedulerName: "label-priority",
			Containers: []v1.Container{{
				Name:  "app",
				Image: "registry.example/app:1.0",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
					v1.ResourceCPU:    resource.MustParse("100m"),
					v1.ResourceMemory: resource.MustParse("64Mi"),
				}},
			}},
		},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
}

func node(name string, labelValue *string) v1.Node {
	labels := map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
	if labelValue != nil {
		labels[labelKey] = *labelValue
	}
	return v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-uid-" + name), Labels: labels,
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"}},
		Spec: v1.NodeSpec{PodCIDR: "10.244.0.0/24"},
		Status: v1.NodeStatus{
			Capacity:    v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("16Gi"), v1.ResourcePods: resource.MustParse("110")},
			Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("3800m"), v1.ResourceMemory: resource.MustParse("15Gi"), v1.ResourcePods: resource.MustParse("110")},
			Conditions: []v1.NodeCondition{
				{Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
				{Type: v1.NodeMemoryPressure, Status: v1.ConditionFalse, Reason: "KubeletHasSufficientMemory"},
			},
			Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.0.1"}, {Type: v1.NodeHostName, Address: name}},
			NodeInfo:  v1.NodeSystemInfo{KubeletVersion: "v1.33.13", OperatingSystem: "linux", Architecture: "amd64", ContainerRuntimeVersion: "containerd://2.0.0"},
			Images: []v1.ContainerImage{
				{Names: []string{"registry.k8s.io/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a", "registry.k8s.io/pause:3.10"}, SizeBytes: 320368},
			},
		},
	}
}

func s(v string) *string { return &v }

func nodeList(nodes ...v1.Node) *v1.NodeList { return &v1.NodeList{Items: nodes} }

func names(n ...string) *[]string { return &n }

var (
	n1 = node("n1", s("10"))
	n2 = node("n2", nil)
	n3 = node("n3", s("20"))
	n4 = node("n4", s("fast"))
)

func write(dir, verb, name string, request, response any) {
	for suffix, value := range map[string]any{"request": request, "response": response} {
		data, err := json.Marshal(value)
		if err != nil {
			panic(err)
		}
		path := filepath.Join(dir, verb, name+"."+suffix+".json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			panic(err)
		}
	}
	fmt.Println("wrote", verb, name)
}

func main() {
	dir := os.Args[1]
	p := pod("web-0")

	// Filter. Cases ending in "-cache" run against the static cache described in fixtures/README.md.
	write(dir, "filter", "full-nodes",
		extenderv1.ExtenderArgs{Pod: p, Nodes: nodeList(n1, n2, n3, n4)},
		extenderv1.ExtenderFilterResult{Nodes: nodeList(n1, n3, n4), FailedNodes: extenderv1.FailedNodesMap{},
			FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{"n2": lacks}})
	write(dir, "filter", "full-nodes-none-labelled",
		extenderv1.ExtenderArgs{Pod: p, Nodes: nodeList(n2)},
		extenderv1.ExtenderFilterResult{Nodes: &v1.NodeList{Items: []v1.Node{}}, FailedNodes: extenderv1.FailedNodesMap{},
			FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{"n2": lacks}})
	write(dir, "filter", "full-nodes-empty",
		extenderv1.ExtenderArgs{Pod: p, Nodes: &v1.NodeList{}},
		extenderv1.ExtenderFilterResult{Nodes: &v1.NodeList{Items: []v1.Node{}}, FailedNodes: extenderv1.FailedNodesMap{},
			FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{}})
	write(dir, "filter", "names-only-cache",
		extenderv1.ExtenderArgs{Pod: p, NodeNames: names("n1", "n2", "n3", "n4", "n9")},
		extenderv1.ExtenderFilterResult{NodeNames: names("n1", "n3", "n4"), FailedNodes: extenderv1.FailedNodesMap{},
			FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{"n2": lacks, "n9": unknown}})
	write(dir, "filter", "names-only-nocache",
		extenderv1.ExtenderArgs{Pod: p, NodeNames: names("n1", "n2")},
		extenderv1.ExtenderFilterResult{Error: "this extender got node names only (nodeCacheCapable: true) but runs without --node-cache, so it cannot see node labels; start it with --node-cache (SCHEDULEROPS_NODE_CACHE=true) or set nodeCacheCapable: false"})

	// FilterOnlyOne: n3 (20) beats n1 (10) and n4 (non-numeric); a tie on value goes to the smaller name.
	write(dir, "filter_onlyone", "full-nodes",
		extenderv1.ExtenderArgs{Pod: p, Nodes: nodeList(n1, n2, n3, n4)},
		extenderv1.ExtenderFilterResult{Nodes: nodeList(n3), FailedNodes: extenderv1.FailedNodesMap{},
			FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{"n1": notChosen, "n2": lacks, "n4": notChosen}})
	write(dir, "filter_onlyone", "full-nodes-tie",
		extenderv1.ExtenderArgs{Pod: p, Nodes: nodeList(node("b", s("7")), node("a", s("007")), node("c", s("x")))},
		extenderv1.ExtenderFilterResult{Nodes: nodeList(node("a", s("007"))), FailedNodes: extenderv1.FailedNodesMap{},
			FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{"b": notChosen, "c": notChosen}})
	write(dir, "filter_onlyone", "names-only-cache",
		extenderv1.ExtenderArgs{Pod: p, NodeNames: names("n4", "n1", "n2", "n3")},
		extenderv1.ExtenderFilterResult{NodeNames: names("n3"), FailedNodes: extenderv1.FailedNodesMap{},
			FailedAndUnresolvableNodes: extenderv1.FailedNodesMap{"n1": notChosen, "n2": lacks, "n4": notChosen}})

	// Prioritize: floor(10 * v / max); missing and non-numeric score 0.
	scores := extenderv1.HostPriorityList{{Host: "n1", Score: 5}, {Host: "n2", Score: 0}, {Host: "n3", Score: 10}, {Host: "n4", Score: 0}}
	write(dir, "prioritize", "full-nodes",
		extenderv1.ExtenderArgs{Pod: p, Nodes: nodeList(n1, n2, n3, n4)}, scores)
	write(dir, "prioritize", "names-only-cache",
		extenderv1.ExtenderArgs{Pod: p, NodeNames: names("n1", "n2", "n3", "n4")}, scores)
	write(dir, "prioritize", "full-nodes-empty",
		extenderv1.ExtenderArgs{Pod: p, Nodes: &v1.NodeList{}}, extenderv1.HostPriorityList{})

	// Preempt. Full victims (nodeCacheCapable: false): without a cache every candidate with victims is kept.
	victim := func(name string) *v1.Pod { return pod(name) }
	write(dir, "preempt", "victims-nocache",
		extenderv1.ExtenderPreemptionArgs{Pod: p, NodeNameToVictims: map[string]*extenderv1.Victims{
			"n1": {Pods: []*v1.Pod{victim("low-1"), victim("low-2")}, NumPDBViolations: 1},
			"n2": {Pods: []*v1.Pod{victim("low-3")}},
			"n3": {Pods: []*v1.Pod{}},
		}},
		extenderv1.ExtenderPreemptionResult{NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{
			"n1": {Pods: []*extenderv1.MetaPod{{UID: "uid-low-1"}, {UID: "uid-low-2"}}, NumPDBViolations: 1},
			"n2": {Pods: []*extenderv1.MetaPod{{UID: "uid-low-3"}}},
		}})
	// Meta victims (nodeCacheCapable: true): n2 lacks the label and n9 is unknown, so both are dropped.
	write(dir, "preempt", "meta-victims-cache",
		extenderv1.ExtenderPreemptionArgs{Pod: p, NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{
			"n1": {Pods: []*extenderv1.MetaPod{{UID: "uid-low-1"}}, NumPDBViolations: 0},
			"n2": {Pods: []*extenderv1.MetaPod{{UID: "uid-low-3"}}},
			"n9": {Pods: []*extenderv1.MetaPod{{UID: "uid-low-4"}}},
		}},
		extenderv1.ExtenderPreemptionResult{NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{
			"n1": {Pods: []*extenderv1.MetaPod{{UID: "uid-low-1"}}, NumPDBViolations: 0},
		}})

	// Bind: the binder of the fixture test succeeds for every node but "broken".
	write(dir, "bind", "ok",
		extenderv1.ExtenderBindingArgs{PodName: "web-0", PodNamespace: "demo", PodUID: "uid-web-0", Node: "n3"},
		extenderv1.ExtenderBindingResult{})
	write(dir, "bind", "failure",
		extenderv1.ExtenderBindingArgs{PodName: "web-0", PodNamespace: "demo", PodUID: "uid-web-0", Node: "broken"},
		extenderv1.ExtenderBindingResult{Error: "node broken is gone"})
}
