module github.com/perm-peer/perm-peer

go 1.26.8

require go.etcd.io/bbolt v1.4.3

require (
	github.com/stretchr/testify v1.11.1 // indirect
	golang.org/x/sys v0.33.0 // indirect
)
