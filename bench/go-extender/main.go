// Command go-extender is a baseline kube-scheduler extender written the way the Kubernetes docs and most users
// write one: the k8s.io/kube-scheduler/extender/v1 types with encoding/json on net/http, and the same label rule as
// the schedulerops extender. It exists to be benchmarked against ours (bench/vs-go); it is not optimized.
//
//	go-extender --label-key KEY --listen 127.0.0.1:PORT [--kubeconfig PATH] [--static-nodes N]
//
// POST /filter and /prioritize; GET /healthz, /readyz (200 once the node source is ready) and /metrics.
// Full-node requests are answered from the request's nodes, names-only requests from a client-go informer
// (--kubeconfig), from the bench's synthetic nodes (--static-nodes), or with an error (neither).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

func main() {
	labelKey := flag.String("label-key", "", "node label to filter on and score by (required)")
	listen := flag.String("listen", "127.0.0.1:8080", "address to listen on")
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig for the Node informer that answers names-only requests")
	staticCount := flag.Int("static-nodes", 0, "answer names-only requests from N synthetic nodes (HTTP bench only)")
	flag.Parse()
	if *labelKey == "" || (*kubeconfig != "" && *staticCount > 0) {
		flag.Usage()
		log.Fatal("--label-key is required; --kubeconfig and --static-nodes exclude each other")
	}

	ext := &Extender{labelKey: *labelKey}
	var ready atomic.Bool
	switch {
	case *kubeconfig != "":
		lister, err := informerNodes(*kubeconfig, &ready, make(chan struct{}))
		if err != nil {
			log.Fatal(err)
		}
		ext.nodes = lister
	case *staticCount > 0:
		ext.nodes = staticNodes(*staticCount, *labelKey)
		ready.Store(true)
	default:
		ready.Store(true)
	}

	metrics := &requestMetrics{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /filter", metrics.timed("/filter", func(w http.ResponseWriter, r *http.Request) {
		var args extenderv1.ExtenderArgs
		if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, ext.Filter(&args))
	}))
	mux.HandleFunc("POST /prioritize", metrics.timed("/prioritize", func(w http.ResponseWriter, r *http.Request) {
		var args extenderv1.ExtenderArgs
		if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		scores, err := ext.Prioritize(&args)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		writeJSON(w, scores)
	}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !ready.Load() {
			http.Error(w, "node source not synced", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /metrics", metrics.serve)

	log.Printf("go-extender listening on %s (label key %q)", *listen, *labelKey)
	log.Fatal(http.ListenAndServe(*listen, mux))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		log.Printf("writing the reply: %v", err)
	}
}

// requestMetrics counts requests and the time spent handling them, server side, per path.
type requestMetrics struct {
	mu      sync.Mutex
	count   map[string]int64
	seconds map[string]float64
}

func (m *requestMetrics) timed(path string, handler http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		handler(w, r)
		elapsed := time.Since(start).Seconds()
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.count == nil {
			m.count, m.seconds = map[string]int64{}, map[string]float64{}
		}
		m.count[path]++
		m.seconds[path] += elapsed
	}
}

func (m *requestMetrics) serve(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	paths := []string{"/filter", "/prioritize"}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintln(w, "# HELP go_extender_requests_total Extender requests handled, per path.")
	fmt.Fprintln(w, "# TYPE go_extender_requests_total counter")
	for _, p := range paths {
		fmt.Fprintf(w, "go_extender_requests_total{path=%q} %d\n", p, m.count[p])
	}
	fmt.Fprintln(w, "# HELP go_extender_request_seconds Time spent handling extender requests, server side, per path.")
	fmt.Fprintln(w, "# TYPE go_extender_request_seconds summary")
	for _, p := range paths {
		fmt.Fprintf(w, "go_extender_request_seconds_sum{path=%q} %g\n", p, m.seconds[p])
		fmt.Fprintf(w, "go_extender_request_seconds_count{path=%q} %d\n", p, m.count[p])
	}
}
