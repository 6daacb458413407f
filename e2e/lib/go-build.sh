# How the binaries that only tests run are compiled; sourced by e2e/cluster (the other minors' kube-scheduler, every
# leader-election-check) and e2e/tools/build (Flux, Argo CD, Prometheus, kube-router, the Git server).
#
# Without optimisations and inlining, except the standard library. Measured on 2 cores: kube-scheduler v1.30.14 from
# an empty build cache took 375 s of CPU (user and sys) without optimisations, 465 s with them; a start of it that
# only writes its configuration, as the validator-agreement tests run it, 0.11 s instead of 0.06 s (both with the
# standard library unoptimised too). Keeping the standard library optimised shares its compiled packages with the
# cluster's own binaries (optimised: kube-apiserver, kubelet and the scheduler under test are timed) and keeps the
# runtime and its garbage collector fast.
#
# Every build here also links with -s -w: the go command compiles without DWARF when the link drops it, so a build
# with other link flags recompiles every package (85 s of CPU for a leader-election-check after its kube-scheduler).
# shellcheck disable=SC2034  # used by the scripts that source this file
TEST_ONLY_GCFLAGS=(-gcflags "all=-N -l" -gcflags "std=")

# A kube-scheduler that build-schedulers compiled for tests only has this file beside it: `e2e/cluster build` of that
# version (e2e/matrix, e2e/control-plane-upgrade) then builds it again, optimised, for the cluster, e2e/images refuses
# it, and the leader-election-check is compiled with the same flags as the kube-scheduler it sits beside.
# shellcheck disable=SC2034
TEST_ONLY_STAMP=kube-scheduler.test-only
