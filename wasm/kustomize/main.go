// Command kustomize is Kustomize's build (sigs.k8s.io/kustomize/api, the version kubectl 1.32 embeds)
// compiled to WebAssembly (GOOS=js) for gitsync's in-process renderer
// (controller/gitsync/render/kustomize.ts). It registers one global function and waits:
//
//	gitsyncKustomize(files: [path, Uint8Array][], dir: string) -> { yaml: string } | { error: string }
//
// The checkout arrives as data and is built on an in-memory file system, so the renderer never sees
// the disk. Remote references are refused: HTTP resources by the transport below, remote bases because
// a wasm module cannot start `git`. Helm charts and plugins stay off (the default PluginConfig).
package main

import (
	"errors"
	"fmt"
	"net/http"
	"syscall/js"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

type refuseRemote struct{}

func (refuseRemote) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("remote references are refused (%s)", r.URL.Redacted())
}

func build(_ js.Value, args []js.Value) (result any) {
	defer func() {
		if p := recover(); p != nil {
			result = map[string]any{"error": fmt.Sprint("kustomize panicked: ", p)}
		}
	}()
	if len(args) != 2 {
		return map[string]any{"error": "usage: gitsyncKustomize(files, dir)"}
	}
	yaml, err := run(args[0], args[1].String())
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	return map[string]any{"yaml": yaml}
}

func run(files js.Value, dir string) (string, error) {
	fs := filesys.MakeFsInMemory()
	for i, n := 0, files.Length(); i < n; i++ {
		entry := files.Index(i)
		data := entry.Index(1)
		buf := make([]byte, data.Length())
		js.CopyBytesToGo(buf, data)
		if err := fs.WriteFile("/"+entry.Index(0).String(), buf); err != nil {
			return "", err
		}
	}
	// As `kubectl kustomize` runs it: legacy reordering (kinds sorted), default load restrictions.
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionLegacy
	m, err := krusty.MakeKustomizer(opts).Run(fs, "/"+dir)
	if err != nil {
		return "", err
	}
	out, err := m.AsYaml()
	if err != nil {
		return "", errors.Join(errors.New("encoding the result"), err)
	}
	return string(out), nil
}

func main() {
	http.DefaultTransport = refuseRemote{}
	js.Global().Set("gitsyncKustomize", js.FuncOf(build))
	select {}
}
