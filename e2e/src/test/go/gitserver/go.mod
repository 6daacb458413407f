module schedulerops.dev/gitserver

go 1.24.0

require github.com/fluxcd/gitkit v0.6.0

require (
	github.com/gofrs/uuid v4.2.0+incompatible // indirect
	golang.org/x/crypto v0.47.0 // indirect
	golang.org/x/sys v0.40.0 // indirect
)
