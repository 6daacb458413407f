// Command coredns is CoreDNS with only the plugins the real node's Corefile uses (e2e/lib/node.sh): bind, errors,
// cache and kubernetes. CoreDNS's own main compiles in every plugin of its plugin.cfg, the cloud DNS providers' SDKs
// among them (AWS, Azure, Google: 1219 packages against 745 here). e2e/cluster build builds this inside a module
// that requires the CoreDNS release, the way CoreDNS documents for external plugin lists.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
)

func init() {
	// In the order of CoreDNS's plugin.cfg, which is the order a query passes through them.
	dnsserver.Directives = []string{"bind", "errors", "cache", "kubernetes"}
}

func main() { coremain.Run() }
