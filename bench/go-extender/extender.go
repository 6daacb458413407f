package main

import (
	"fmt"
	"math/big"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corelisters "k8s.io/client-go/listers/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

const maxScore = 10

// Extender applies the label rule of the schedulerops extender: Filter keeps nodes that carry labelKey (any value),
// Prioritize scores floor(10*v/max) over the request's nodes for all-digit values v.
type Extender struct {
	labelKey string
	// nodes answers names-only requests; nil when the extender has no node source.
	nodes corelisters.NodeLister
}

func (e *Extender) lackReason() string {
	return fmt.Sprintf("node(s) lack the label %q required by the SchedulerProfile extender", e.labelKey)
}

const unknownReason = "node(s) not yet known to the SchedulerProfile extender's node cache"

const noCacheError = "this extender got node names only (nodeCacheCapable: true) but has no node source; " +
	"start it with --kubeconfig or set nodeCacheCapable: false"

// Filter keeps the nodes that carry the label; the others are unresolvable.
func (e *Extender) Filter(args *extenderv1.ExtenderArgs) *extenderv1.ExtenderFilterResult {
	failed := extenderv1.FailedNodesMap{}
	if args.Nodes != nil {
		kept := []v1.Node{}
		for _, node := range args.Nodes.Items {
			if _, ok := node.Labels[e.labelKey]; ok {
				kept = append(kept, node)
			} else {
				failed[node.Name] = e.lackReason()
			}
		}
		return &extenderv1.ExtenderFilterResult{
			Nodes:                      &v1.NodeList{Items: kept},
			FailedNodes:                extenderv1.FailedNodesMap{},
			FailedAndUnresolvableNodes: failed,
		}
	}
	if args.NodeNames == nil {
		return &extenderv1.ExtenderFilterResult{Error: "the request has neither Nodes nor NodeNames"}
	}
	if e.nodes == nil {
		return &extenderv1.ExtenderFilterResult{Error: noCacheError}
	}
	kept := []string{}
	for _, name := range *args.NodeNames {
		node, err := e.nodes.Get(name)
		switch {
		case apierrors.IsNotFound(err):
			failed[name] = unknownReason
		case err != nil:
			return &extenderv1.ExtenderFilterResult{Error: err.Error()}
		default:
			if _, ok := node.Labels[e.labelKey]; ok {
				kept = append(kept, name)
			} else {
				failed[name] = e.lackReason()
			}
		}
	}
	return &extenderv1.ExtenderFilterResult{
		NodeNames:                  &kept,
		FailedNodes:                extenderv1.FailedNodesMap{},
		FailedAndUnresolvableNodes: failed,
	}
}

// Prioritize scores every node of the request, in request order.
func (e *Extender) Prioritize(args *extenderv1.ExtenderArgs) (extenderv1.HostPriorityList, error) {
	var hosts []string
	var values []*big.Int
	if args.Nodes != nil {
		for _, node := range args.Nodes.Items {
			hosts = append(hosts, node.Name)
			values = append(values, numeric(node.Labels, e.labelKey))
		}
	} else if args.NodeNames != nil {
		if e.nodes == nil {
			return nil, fmt.Errorf("%s", noCacheError)
		}
		for _, name := range *args.NodeNames {
			var labels map[string]string
			node, err := e.nodes.Get(name)
			if err == nil {
				labels = node.Labels
			} else if !apierrors.IsNotFound(err) {
				return nil, err
			}
			hosts = append(hosts, name)
			values = append(values, numeric(labels, e.labelKey))
		}
	} else {
		return nil, fmt.Errorf("the request has neither Nodes nor NodeNames")
	}
	return Scores(hosts, values), nil
}

// Scores gives floor(10*v/max) per host, where max is the largest value; nil values score 0, and so does every
// host when max is 0 or no value is numeric.
func Scores(hosts []string, values []*big.Int) extenderv1.HostPriorityList {
	max := new(big.Int)
	for _, v := range values {
		if v != nil && v.Cmp(max) > 0 {
			max = v
		}
	}
	result := extenderv1.HostPriorityList{}
	for i, host := range hosts {
		score := int64(0)
		if values[i] != nil && max.Sign() > 0 {
			scaled := new(big.Int).Mul(values[i], big.NewInt(maxScore))
			score = scaled.Quo(scaled, max).Int64()
		}
		result = append(result, extenderv1.HostPriority{Host: host, Score: score})
	}
	return result
}

// numeric reads labels[key] as a non-negative integer of any size when it is non-empty and all ASCII digits;
// otherwise (missing, empty, signed, decimal, ...) nil.
func numeric(labels map[string]string, key string) *big.Int {
	value, ok := labels[key]
	if !ok || value == "" {
		return nil
	}
	for i := 0; i < len(value); i++ {
		if value[i] < '0' || value[i] > '9' {
			return nil
		}
	}
	n, ok := new(big.Int).SetString(value, 10)
	if !ok {
		return nil
	}
	return n
}
