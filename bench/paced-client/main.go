// A client that calls an extender as kube-scheduler does: one keep-alive connection, one request at a time, at a
// fixed rate, with Go's net/http. Used by bench/http-cpu to measure the server's CPU per request.
//
//	paced-client URL NAMES RATE SECONDS
//
// POSTs a names-only filter request of NAMES node names (node-00000, ...) RATE times a second for SECONDS seconds
// and prints "requests N" (every answer must be 200, else it exits 1).
package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: paced-client URL NAMES RATE SECONDS")
		os.Exit(2)
	}
	url := os.Args[1]
	names, _ := strconv.Atoi(os.Args[2])
	rate, _ := strconv.Atoi(os.Args[3])
	seconds, _ := strconv.Atoi(os.Args[4])
	body := request(names)
	client := &http.Client{Transport: &http.Transport{}}
	interval := time.Second / time.Duration(rate)
	end := time.Now().Add(time.Duration(seconds) * time.Second)
	next := time.Now()
	count := 0
	for time.Now().Before(end) {
		resp, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			fmt.Fprintln(os.Stderr, "status", resp.StatusCode)
			os.Exit(1)
		}
		count++
		next = next.Add(interval)
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		}
	}
	fmt.Println("requests", count)
}

// request is a names-only ExtenderArgs body with a small pod, as kube-scheduler sends to a nodeCacheCapable extender.
func request(names int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"Pod":{"metadata":{"name":"p","namespace":"default","uid":"u"},"spec":{"schedulerName":"s",` +
		`"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"10m"}}}]}},"Nodes":null,"NodeNames":[`)
	for i := 0; i < names; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"node-%05d"`, i%5000)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}
