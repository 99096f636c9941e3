module github.com/perm-peer/perm-peer

go 1.26.8

require (
	github.com/bmatcuk/doublestar/v4 v4.9.1
	github.com/invopop/jsonschema v0.14.0
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/sourcegraph/jsonrpc2 v0.2.3
	github.com/stretchr/testify v1.11.1
	go.etcd.io/bbolt v1.4.3
	golang.org/x/sys v0.33.0
	mvdan.cc/sh/v3 v3.12.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pb33f/ordered-map/v2 v2.3.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.2 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
