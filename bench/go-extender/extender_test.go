package main

import (
	"math/big"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

const key = "priority.lixueduan.com"

func node(name string, labels map[string]string) v1.Node {
	return v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func TestFilterKeepsLabelledNodesWhateverTheValue(t *testing.T) {
	ext := &Extender{labelKey: key}
	nodes := &v1.NodeList{Items: []v1.Node{
		node("a", map[string]string{key: "10"}),
		node("b", nil),
		node("c", map[string]string{key: ""}),
		node("d", map[string]string{"other": "1"}),
	}}
	result := ext.Filter(&extenderv1.ExtenderArgs{Nodes: nodes})
	var kept []string
	for _, n := range result.Nodes.Items {
		kept = append(kept, n.Name)
	}
	if !reflect.DeepEqual(kept, []string{"a", "c"}) {
		t.Errorf("kept %v", kept)
	}
	reason := `node(s) lack the label "priority.lixueduan.com" required by the SchedulerProfile extender`
	want := extenderv1.FailedNodesMap{"b": reason, "d": reason}
	if !reflect.DeepEqual(result.FailedAndUnresolvableNodes, want) {
		t.Errorf("failed %v", result.FailedAndUnresolvableNodes)
	}
}

func TestFilterNamesOnly(t *testing.T) {
	ext := &Extender{labelKey: key, nodes: staticNodes(5, key)}
	names := []string{"node-00000", "node-00004", "node-99999"}
	result := ext.Filter(&extenderv1.ExtenderArgs{NodeNames: &names})
	if !reflect.DeepEqual(*result.NodeNames, []string{"node-00000"}) {
		t.Errorf("kept %v", *result.NodeNames)
	}
	if result.FailedAndUnresolvableNodes["node-99999"] != unknownReason || len(result.FailedAndUnresolvableNodes) != 2 {
		t.Errorf("failed %v", result.FailedAndUnresolvableNodes)
	}
	if (&Extender{labelKey: key}).Filter(&extenderv1.ExtenderArgs{NodeNames: &names}).Error == "" {
		t.Error("names-only without a node source must answer an Error")
	}
}

func TestScores(t *testing.T) {
	cases := []struct {
		values []string
		want   []int64
	}{
		{[]string{"5", "10", "0", "ten"}, []int64{5, 10, 0, 0}},
		{[]string{"007", "7", "3"}, []int64{10, 10, 4}},
		{[]string{"0", "0"}, []int64{0, 0}},
		{[]string{"-5", "+5", "1.5", "1e3", ""}, []int64{0, 0, 0, 0, 0}},
		{[]string{"99999999999999999999999999", "33333333333333333333333333", "1"}, []int64{10, 3, 0}},
		{[]string{"99999999999999999999999999", "99999999999999999999999998"}, []int64{10, 9}},
	}
	for _, c := range cases {
		hosts := make([]string, len(c.values))
		values := make([]*big.Int, len(c.values))
		for i, v := range c.values {
			values[i] = numeric(map[string]string{key: v}, key)
		}
		var got []int64
		for _, h := range Scores(hosts, values) {
			got = append(got, h.Score)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: got %v, want %v", c.values, got, c.want)
		}
	}
	if numeric(nil, key) != nil {
		t.Error("a missing label is not numeric")
	}
}
