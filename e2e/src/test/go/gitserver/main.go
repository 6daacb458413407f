// gitserver serves the bare Git repositories under a directory over smart HTTP on 127.0.0.1, for tests that point
// Flux's source-controller or Argo CD's repo-server at a Git repository without any network.
//
//	gitserver -root DIR -port N [-auto-create] [-read-only]
//
// It prints the base URL (http://127.0.0.1:N) on a line of its own once it listens; a repository DIR/a/b.git is
// then at <URL>/a/b.git. -port 0 picks a free port (read it from the printed URL). It stops on SIGTERM or SIGINT.
//
// The handler is github.com/fluxcd/gitkit, the one github.com/fluxcd/pkg/gittestserver serves: gittestserver
// listens through net/http/httptest, which always takes a random port, so this wraps gitkit on a listener of its
// own. gitkit runs the `git` binary (upload-pack, receive-pack) from PATH.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/fluxcd/gitkit"
)

func main() {
	root := flag.String("root", "", "directory holding the bare repositories (required)")
	port := flag.Int("port", 0, "TCP port on 127.0.0.1 (0: a free one)")
	autoCreate := flag.Bool("auto-create", false, "create a bare repository on the first push to a new path")
	readOnly := flag.Bool("read-only", false, "refuse pushes")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("gitserver: ")
	if *root == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	dir, err := filepath.Abs(*root)
	if err != nil {
		log.Fatal(err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		log.Fatalf("-root %s is not a directory", *root)
	}
	if _, err := exec.LookPath("git"); err != nil {
		log.Fatal("git is not on PATH: the server runs git upload-pack and receive-pack")
	}

	service := gitkit.New(gitkit.Config{Dir: dir, AutoCreate: *autoCreate, ReadOnly: *readOnly})
	if err := service.Setup(); err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		log.Fatal(err)
	}
	server := &http.Server{Handler: service, ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("http://%s\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- server.Serve(ln) }()
	select {
	case err := <-done:
		log.Fatal(err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := server.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		log.Print(err)
	}
}
