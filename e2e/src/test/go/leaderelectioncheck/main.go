// Command leaderelectioncheck asks client-go's leader elector, of the release it is built with, whether it takes a
// lease configuration. kube-scheduler validates its config file at start-up (what --write-config-to proves), but the
// leader elector judges leaseDuration, renewDeadline and retryPeriod only later, in Run, when it is created with
// leaderelection.NewLeaderElector: a scheduler whose config passed validation still exits there. e2e/cluster
// build-schedulers builds this inside each release's own module (the same client-go kube-scheduler links).
//
// Input: one line per question, "leaseDuration renewDeadline retryPeriod" as Go durations. Output: one line per
// question, "ok" or "refused: <the error kube-scheduler would exit with>".
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		fmt.Fprintln(out, judge(in.Text()))
		out.Flush()
	}
}

func judge(line string) string {
	fields := strings.Fields(line)
	if len(fields) != 3 {
		return "error: want three durations, got " + fmt.Sprint(len(fields))
	}
	var d [3]time.Duration
	for i, f := range fields {
		parsed, err := time.ParseDuration(f)
		if err != nil {
			return "error: " + err.Error()
		}
		d[i] = parsed
	}
	// The lock and callbacks kube-scheduler passes are never nil; these stand in for them.
	_, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:          &resourcelock.LeaseLock{LockConfig: resourcelock.ResourceLockConfig{Identity: "check"}},
		LeaseDuration: d[0],
		RenewDeadline: d[1],
		RetryPeriod:   d[2],
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) {},
			OnStoppedLeading: func() {},
		},
		Name: "kube-scheduler",
	})
	if err != nil {
		return "refused: " + err.Error()
	}
	return "ok"
}
