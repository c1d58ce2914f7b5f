//go:build tools

// Keeps the pinned module required: `go mod tidy` drops a requirement no package of the module imports.
package tools

import _ "github.com/google/go-containerregistry/cmd/crane"
