package main

import (
	"fmt"
	"strconv"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// informerNodes watches Nodes with a client-go shared informer and answers from its lister; ready turns true once
// the first list has synced.
func informerNodes(kubeconfig string, ready *atomic.Bool, stop <-chan struct{}) (corelisters.NodeLister, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	lister := factory.Core().V1().Nodes().Lister()
	factory.Start(stop)
	go func() {
		for _, synced := range factory.WaitForCacheSync(stop) {
			if !synced {
				return
			}
		}
		ready.Store(true)
	}()
	return lister, nil
}

// staticNodes is a lister over the synthetic nodes of the Java bench (NodeJson): node-00000 ... with the label
// value (i*7919)%1000, except every fifth node (i%5 == 4), which lacks the label.
func staticNodes(count int, labelKey string) corelisters.NodeLister {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i := 0; i < count; i++ {
		labels := map[string]string{}
		if i%5 != 4 {
			labels[labelKey] = strconv.Itoa(i * 7919 % 1000)
		}
		node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%05d", i), Labels: labels}}
		if err := indexer.Add(node); err != nil {
			panic(err)
		}
	}
	return corelisters.NewNodeLister(indexer)
}
